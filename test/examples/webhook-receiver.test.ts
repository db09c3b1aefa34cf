// The webhook receiver example (examples/webhook-receiver/server.ts), run as its own process on
// https://127.0.0.x:8443 with a test CA, receiving real deliveries: the HTTP app on a loopback port,
// the outbox relay, and a Temporal dev server with a worker running the delivery workflows.
//
// Subscriptions to loopback addresses need WEBHOOK_ALLOW_PRIVATE_TARGETS: handed in with loadConfig.
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { WebhookEvent } from '../../examples/webhook-receiver/receiver.ts';
import { loadConfig } from '../../src/config.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { serveApp } from '../support/http.ts';
import { startDevServerDeliveryStack } from '../support/delivery-stack.ts';
import { supportBoard } from '../tickets/helpers.ts';
import { createTestCa, RECEIVER_PORT, type TestCa } from '../webhooks/receiver.ts';
import { runExample, type ExampleProcess } from './support.ts';

loadConfig({ ...process.env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });

const stops: (() => Promise<unknown>)[] = [];
let tls: TestCa;
let origin: string;
let apiKey: string;
let ticketBody: Record<string, unknown>;
let subscription: { id: string; secret: string };
let receiver: ExampleProcess;
let receiverOrigin: string;

/** Starts the example on the first loopback address whose port 8443 is free (other test files use it too). */
async function startExampleReceiver(secret: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'example-receiver-'));
  stops.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'cert.pem'), tls.cert);
  fs.writeFileSync(path.join(dir, 'key.pem'), tls.key);
  for (let i = 1; i <= 9; i++) {
    const host = `127.0.0.${i}`;
    const example = runExample('webhook-receiver/server.ts', {
      WEBHOOK_SECRET: secret,
      TLS_CERT_FILE: path.join(dir, 'cert.pem'),
      TLS_KEY_FILE: path.join(dir, 'key.pem'),
      HOST: host,
      PORT: String(RECEIVER_PORT),
    });
    try {
      await example.waitFor(/listening on https:/);
      stops.push(() => example.stop());
      return { example, origin: `https://${host}:${RECEIVER_PORT}` };
    } catch (err) {
      await example.stop();
      if (!example.output().includes('EADDRINUSE')) throw err;
    }
  }
  throw new Error(`port ${RECEIVER_PORT} is taken on 127.0.0.1 to 127.0.0.9`);
}

/** A POST to the example as any sender could make it (trusting the test CA). */
function post(body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${receiverOrigin}/webhooks`, { method: 'POST', ca: tls.ca, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A test event signed the Standard Webhooks way, with a fresh webhook-id. */
function signedTestEvent(secret = subscription.secret) {
  const id = `evt_example_${crypto.randomBytes(6).toString('hex')}`;
  const event: WebhookEvent = { id, type: 'webhook.test', occurredAt: new Date().toISOString(), workspace: 'https://example.test', actor: null, changes: null, data: {} };
  const body = JSON.stringify(event);
  const timestamp = new Date();
  const headers = {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, timestamp, body),
  };
  return { id, body, headers };
}

const processedLines = (eventId: string) => receiver.output().split('\n').filter((l) => l === `processed ticket.created ${eventId}`);

/** Creates a ticket and waits for the example to have processed its ticket.created delivery. */
async function createTicketAndAwaitProcessing() {
  const ticket = await api('POST', '/tickets', { origin, key: apiKey, body: ticketBody });
  expect(ticket.status).toBe(201);
  const entry = await vi.waitFor(async () => {
    const log = await api('GET', `/webhooks/${subscription.id}/deliveries?status=succeeded`, { origin, key: apiKey });
    const found = log.body.data.find((e: { payload: { data: { id: number } } }) => e.payload.data.id === ticket.body.id);
    expect(found, 'waiting for the delivery in the log').toBeDefined();
    return found;
  }, { timeout: 30_000, interval: 200 });
  await receiver.waitFor(new RegExp(`^processed ticket\\.created ${entry.eventId}$`, 'm'));
  return entry as { eventId: string; deliveryId: string; httpStatus: number };
}

beforeAll(async () => {
  tls = createTestCa();
  // The example is the receiver: the deliveries trust its CA.
  const deliveries = await startDevServerDeliveryStack({ queue: 'example-deliveries', tls });
  stops.push(() => deliveries.stop());
  const ws = await createTestWorkspace('Examples');
  apiKey = (await ws.key()).value;
  const s = supportBoard(ws);
  ticketBody = { boardId: s.board.id, subject: 'Printer on fire', requesterEmail: 'customer@example.com', fields: [{ fieldId: s.product, value: 'Web' }] };

  const app = await serveApp();
  stops.push(() => app.close());
  origin = app.origin;

  // The secret comes with the subscription, and the example needs it to start; the address it
  // gets is known only then, so the URL is corrected afterwards when it is not the first one.
  const firstUrl = `https://127.0.0.1:${RECEIVER_PORT}/webhooks`;
  const created = await api('POST', '/webhooks', { origin, key: apiKey, body: { url: firstUrl, events: ['ticket.created'] } });
  expect(created.status).toBe(201);
  subscription = created.body;
  ({ example: receiver, origin: receiverOrigin } = await startExampleReceiver(subscription.secret));
  if (`${receiverOrigin}/webhooks` !== firstUrl) {
    expect((await api('PATCH', `/webhooks/${subscription.id}`, { origin, key: apiKey, body: { url: `${receiverOrigin}/webhooks` } })).status).toBe(200);
  }
}, 180_000);

afterAll(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
}, 60_000);

describe('examples/webhook-receiver', () => {
  it('verifies and processes a real ticket.created delivery, answering 204', { timeout: 60_000 }, async () => {
    const entry = await createTicketAndAwaitProcessing();
    expect(entry.httpStatus).toBe(204);
    expect(processedLines(entry.eventId)).toHaveLength(1);
  });

  it('rejects unsigned, tampered and wrongly signed requests with 401, and remembers none of them', async () => {
    const genuine = signedTestEvent();
    const { 'webhook-signature': _, ...unsigned } = genuine.headers;
    expect(await post(genuine.body, unsigned)).toBe(401);
    expect(await post(genuine.body.replace('webhook.test', 'ticket.created'), genuine.headers)).toBe(401);
    const forged = signedTestEvent('whsec_' + crypto.randomBytes(32).toString('base64'));
    expect(await post(genuine.body, { ...forged.headers, 'webhook-id': genuine.id })).toBe(401);
    expect(receiver.output()).toContain('rejected: No matching signature found');
    expect(receiver.output()).not.toContain(genuine.id);

    // The same webhook-id, properly signed, is new to the example: the rejections recorded nothing.
    expect(await post(genuine.body, genuine.headers)).toBe(204);
    await receiver.waitFor(new RegExp(`^processed webhook\\.test ${genuine.id}$`, 'm'));
  });

  it('drops a delivery whose ticket version is older than one already processed', { timeout: 60_000 }, async () => {
    const ticketId = 900_000 + crypto.randomInt(99_999);
    const signed = (version: number) => {
      const id = `evt_example_${crypto.randomBytes(6).toString('hex')}`;
      const event: WebhookEvent = { id, type: 'ticket.updated', occurredAt: new Date().toISOString(), workspace: 'https://example.test', actor: { id: 1, name: 'A' }, changes: [], data: { id: ticketId, version } };
      const body = JSON.stringify(event);
      const timestamp = new Date();
      return { id, body, headers: { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)), 'webhook-signature': new Webhook(subscription.secret).sign(id, timestamp, body) } };
    };
    const [v3, v2, v3again, v4] = [signed(3), signed(2), signed(3), signed(4)];
    for (const e of [v3, v2, v3again, v4]) expect(await post(e.body, e.headers)).toBe(204);
    await receiver.waitFor(new RegExp(`^processed ticket\\.updated ${v4.id}$`, 'm'));
    const out = receiver.output();
    expect(out).toContain(`processed ticket.updated ${v3.id}`);
    expect(out).toContain(`stale ${v2.id}: ticket ${ticketId} version 2 is older than 3, dropped`);
    expect(out).not.toContain(`processed ticket.updated ${v2.id}`);
    expect(out).toContain(`processed ticket.updated ${v3again.id}`);
  });

  it('acknowledges a re-send (same webhook-id) without processing it again', { timeout: 60_000 }, async () => {
    const entry = await createTicketAndAwaitProcessing();
    const resent = await api('POST', `/webhooks/${subscription.id}/deliveries/${entry.deliveryId}/resend`, { origin, key: apiKey });
    expect(resent.status).toBe(200);
    expect(resent.body).toMatchObject({ eventId: entry.eventId, trigger: 'manual', status: 'succeeded', httpStatus: 204 });
    await receiver.waitFor(new RegExp(`^duplicate ${entry.eventId}: acknowledged, not processed again$`, 'm'));

    // Events are processed in arrival order: once a later one is done, the re-send would have been too.
    const later = signedTestEvent();
    expect(await post(later.body, later.headers)).toBe(204);
    await receiver.waitFor(new RegExp(`^processed webhook\\.test ${later.id}$`, 'm'));
    expect(processedLines(entry.eventId)).toHaveLength(1);
  });
});
