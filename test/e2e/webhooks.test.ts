// Webhooks end to end, as deployed: the service's own processes (built once per run as `npm
// start` builds it, support/built-service.ts, and run as scripts/start.sh runs it), a real
// Temporal dev server, the database, and an HTTPS receiver on 127.0.0.1:8443 that verifies every
// delivery, unchanged, with the `standardwebhooks` library and with svix's Webhook.verify.
//
// With DATABASE_URL the API and the worker run as separate processes (`npm start -- api` and
// `-- worker`) on that PostgreSQL server; without it one process (`npm start`) runs both on an
// embedded PGlite, and "killing the worker" or "the API" kills that process. The Temporal dev
// server is the test's, so it outlives every kill, as a cluster would.
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { api } from '../support/fixtures.ts';
import { copyMigratedPglite } from '../support/pglite-template.ts';
import { startTestDevServer, type TestDevServer } from '../support/temporal.ts';
import { freePort } from '../support/http.ts';
import { builtServiceCommand } from '../support/built-service.ts';
import { createTestCa, startReceiver, type Receiver, type ReceivedRequest } from '../webhooks/receiver.ts';
import { expectDocumentedDelivery } from '../events/webhook-schemas.ts';

const root = path.resolve(import.meta.dirname, '../..');
const split = Boolean(process.env.DATABASE_URL);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ticketing-e2e-webhooks-'));
// The service starts on the migrated embedded database (its first start is test/e2e/start.test.ts's).
copyMigratedPglite(dataDir);
const caFile = path.join(dataDir, 'receiver-ca.pem');

interface Service {
  mode: 'all' | 'api' | 'worker';
  child: ChildProcess;
  output: () => string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

const running = new Set<Service>();

/**
 * `answering`: wait until /healthz answers rather than for the banner, which comes only once every
 * readiness check passes (a service started against an unreachable Temporal never prints it).
 */
async function startService(mode: Service['mode'], opts: { temporalAddress: string; port?: number; answering?: boolean }): Promise<Service> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    PORT: String(opts.port ?? 0),
    TEMPORAL_ADDRESS: opts.temporalAddress,
    TEMPORAL_TASK_QUEUE: 'e2e-webhooks',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // A subscription of these tests may retry after a few seconds (the SIGKILL test's), not a minute.
    WEBHOOK_RETRY_MIN_DELAY_SECONDS: '1',
    NODE_EXTRA_CA_CERTS: caFile,
  };
  // The built service on node itself, as scripts/start.sh runs it (not through npm or sh): a
  // SIGKILL then kills the service, not a wrapper around it.
  const command = await builtServiceCommand(mode);
  const child = spawn(process.execPath, command.args, { cwd: root, env: { ...env, ...command.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  await new Promise<void>((resolve, reject) => {
    // A start that gives up says which readiness check held the banner back (the service logs
    // nothing before it at LOG_LEVEL=warn), and kills what it started: left running, it would
    // spend the CPU of the rest of the run retrying a Temporal server that the file stops.
    const timer = setTimeout(() => {
      const checks = opts.port ? fetch(`http://127.0.0.1:${opts.port}/readyz`).then((r) => r.text()).catch((e: Error) => e.message) : Promise.resolve('no port');
      void checks.then((answer) => {
        child.kill('SIGKILL');
        reject(new Error(`${mode}: no banner in 90 s (/readyz: ${answer})\n${out}`));
      });
    }, 90_000);
    const onData = () => {
      if (out.includes('Database:')) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${mode} exited with ${code}\n${out}`)));
    if (opts.answering) {
      const poll = async () => {
        const ok = await fetch(`http://127.0.0.1:${opts.port}/healthz`).then((r) => r.ok, () => false);
        if (ok) {
          clearTimeout(timer);
          child.stdout.off('data', onData);
          resolve();
        } else if (child.exitCode === null) setTimeout(() => void poll(), 200);
      };
      void poll();
    }
  });
  const service: Service = {
    mode,
    child,
    output: () => out,
    kill: (signal) =>
      new Promise<void>((resolve) => {
        running.delete(service);
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
  running.add(service);
  return service;
}

interface Deployment {
  /** The processes that serve the API and run the worker (one process without DATABASE_URL). */
  api: Service;
  worker: Service;
}

let httpPort: number;
let dev: TestDevServer;
let receiver: Receiver;
let apiKey: string;
let origin: string;

async function deploy(temporalAddress = dev.address): Promise<Deployment> {
  if (!split) {
    const all = await startService('all', { temporalAddress, port: httpPort });
    return { api: all, worker: all };
  }
  const worker = await startService('worker', { temporalAddress });
  const api = await startService('api', { temporalAddress, port: httpPort });
  return { api, worker };
}

/** How long (30 s unless said) and how often to poll while waiting for `what`. */
const waiting = (what: string, timeout = 30_000) => ({ message: `waiting for ${what}`, timeout, interval: 200 });

const deliveriesTo = (hook: string) => receiver.received(hook);

/** Verifies a delivery exactly as received with both libraries; returns the parsed envelope. */
function verified(req: ReceivedRequest, secret: string) {
  const headers = { 'webhook-id': req.headers['webhook-id'], 'webhook-timestamp': req.headers['webhook-timestamp'], 'webhook-signature': req.headers['webhook-signature'] };
  const a = new StandardWebhook(secret).verify(req.body, headers);
  const b = new SvixWebhook(secret).verify(req.body, headers);
  expect(b).toEqual(a);
  // Every delivery a test receives is also what the OpenAPI document's `webhooks` describes.
  expectDocumentedDelivery(req);
  return a as Record<string, any>;
}

let board: { id: string; productField: string };

async function createTicket(subject: string) {
  const body = {
    boardId: board.id,
    subject,
    description: 'From the end-to-end test',
    requesterEmail: 'customer@example.com',
    priority: 'high',
    fields: [{ fieldId: board.productField, value: 'Web' }],
  };
  const res = await api('POST', '/tickets', { origin, key: apiKey, body });
  expect(res.status).toBe(201);
  return res.body;
}

async function subscribe(hook: string, events: string[], extra: Record<string, unknown> = {}) {
  const res = await api('POST', '/webhooks', { origin, key: apiKey, body: { url: `${receiver.origin}${hook}`, events, ...extra } });
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string };
}

let deployment: Deployment;

beforeAll(async () => {
  const tls = createTestCa();
  fs.writeFileSync(caFile, tls.ca);
  receiver = await startReceiver(tls);
  dev = await startTestDevServer();
  httpPort = await freePort();
  origin = `http://127.0.0.1:${httpPort}`;
  deployment = await deploy();
  apiKey = /API key \(shown once, every scope\): (\S+)/.exec(deployment.api.output())![1]!;
  const boards = await api('GET', '/boards', { origin, key: apiKey });
  const support = boards.body.data.find((b: { name: string }) => b.name === 'Support');
  board = { id: support.id, productField: support.fields.find((f: { name: string }) => f.name === 'Product').id };
}, 240_000);

afterAll(async () => {
  for (const s of running) await s.kill('SIGKILL');
  await receiver?.close();
  await dev?.server.stop();
}, 60_000);

describe(`webhooks end to end (${split ? 'API and worker processes on PostgreSQL' : 'one process on PGlite'})`, () => {
  it('delivers ticket.created and ticket.state_changed signed per Standard Webhooks, with the spec envelope', { timeout: 60_000 }, async () => {
    receiver.respond('/hooks/main', { status: 204 });
    const sub = await subscribe('/hooks/main', ['ticket.created', 'ticket.state_changed']);
    const ticket = await createTicket('Checkout fails');

    await expect.poll(() => deliveriesTo('/hooks/main').length, waiting('ticket.created')).toBeGreaterThan(0);
    const created = deliveriesTo('/hooks/main')[0];
    const envelope = verified(created, sub.secret);
    expect(created.headers['content-type']).toBe('application/json');
    expect(created.headers['user-agent']).toBe('Service-Webhooks/1.0');
    expect(created.headers['webhook-id']).toBe(envelope.id);
    expect(Math.abs(Number(created.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    const me = (await api('GET', '/me', { origin, key: apiKey })).body;
    expect(envelope).toMatchObject({
      type: 'ticket.created',
      workspace: expect.stringMatching(/^http/),
      actor: { id: me.serviceUser.id, name: me.serviceUser.fullName },
      changes: null,
      data: ticket,
    });
    expect(envelope.id).toMatch(/^evt_/);
    expect(new Date(envelope.occurredAt).toISOString()).toBe(envelope.occurredAt);

    const patched = await api('PATCH', `/tickets/${ticket.id}`, { origin, key: apiKey, body: { state: 'In progress' } });
    expect(patched.status).toBe(200);
    await expect.poll(() => deliveriesTo('/hooks/main').length, waiting('ticket.state_changed')).toBeGreaterThan(1);
    const changed = deliveriesTo('/hooks/main')[1];
    const change = verified(changed, sub.secret);
    expect(change).toMatchObject({
      type: 'ticket.state_changed',
      changes: { field: 'state', oldValue: 'New', newValue: 'In progress' },
      data: patched.body,
    });
    expect(changed.headers['webhook-id']).not.toBe(created.headers['webhook-id']);

    // The log has both, succeeded, each with its workflow id.
    const log = await vi.waitFor(async () => {
      const r = await api('GET', `/webhooks/${sub.id}/deliveries?status=succeeded`, { origin, key: apiKey });
      expect(r.body.data, 'the log').toHaveLength(2);
      return r.body.data;
    }, waiting('the log'));
    expect(log.map((e: { eventType: string }) => e.eventType)).toEqual(['ticket.state_changed', 'ticket.created']);
    expect(log[1]).toMatchObject({ eventId: envelope.id, attempt: 1, trigger: 'scheduled', httpStatus: 204, workflowId: `deliveries:${sub.id}` });
    expect(JSON.parse(created.body)).toEqual(log[1].payload);
  });

  it('after a rotation, each of the two signatures verifies with its own secret, new first', { timeout: 60_000 }, async () => {
    receiver.respond('/hooks/rotated', { status: 200 });
    const sub = await subscribe('/hooks/rotated', ['ticket.created']);
    const rotated = await api('POST', `/webhooks/${sub.id}/rotate-secret`, { origin, key: apiKey });
    expect(rotated.status).toBe(200);
    await createTicket('After rotation');
    await expect.poll(() => deliveriesTo('/hooks/rotated').length, waiting('a delivery')).toBeGreaterThan(0);
    const req = deliveriesTo('/hooks/rotated')[0];

    const signatures = req.headers['webhook-signature'].split(' ');
    expect(signatures).toHaveLength(2);
    const id = req.headers['webhook-id'];
    const timestamp = new Date(Number(req.headers['webhook-timestamp']) * 1000);
    expect(signatures[0]).toBe(new StandardWebhook(rotated.body.secret).sign(id, timestamp, req.body));
    expect(signatures[1]).toBe(new StandardWebhook(sub.secret).sign(id, timestamp, req.body));
    verified(req, rotated.body.secret);
    verified(req, sub.secret);
    expect(() => verified(req, 'whsec_' + crypto.randomBytes(32).toString('base64'))).toThrow();
  });

  it('sends a test event to that subscription alone, and re-sends a delivery with the same webhook-id', { timeout: 60_000 }, async () => {
    receiver.respond('/hooks/test', { status: 200 });
    receiver.respond('/hooks/bystander', { status: 200 });
    const sub = await subscribe('/hooks/test', ['ticket.comment_added']);
    await subscribe('/hooks/bystander', ['ticket.comment_added']);
    const test = await api('POST', `/webhooks/${sub.id}/test`, { origin, key: apiKey });
    expect(test.status).toBe(202);
    await expect.poll(() => deliveriesTo('/hooks/test').length, waiting('webhook.test')).toBeGreaterThan(0);
    const req = deliveriesTo('/hooks/test')[0];
    const envelope = verified(req, sub.secret);
    expect(envelope).toMatchObject({ id: test.body.eventId, type: 'webhook.test', data: { subscriptionId: sub.id } });

    const [entry] = (await vi.waitFor(async () => {
      const r = await api('GET', `/webhooks/${sub.id}/deliveries`, { origin, key: apiKey });
      expect(r.body.data[0]?.status, 'the test attempt').toBe('succeeded');
      return r.body.data;
    }, waiting('the test attempt'))) as { deliveryId: string; trigger: string }[];
    expect(entry.trigger).toBe('test');

    const resent = await api('POST', `/webhooks/${sub.id}/deliveries/${entry.deliveryId}/resend`, { origin, key: apiKey });
    expect(resent.status).toBe(200);
    expect(resent.body).toMatchObject({ deliveryId: entry.deliveryId, trigger: 'manual', status: 'succeeded', httpStatus: 200, attempt: 2 });
    const again = deliveriesTo('/hooks/test');
    expect(again).toHaveLength(2);
    expect(again[1].headers['webhook-id']).toBe(req.headers['webhook-id']);
    expect(again[1].body).toBe(req.body);
    verified(again[1], sub.secret);
    expect(deliveriesTo('/hooks/bystander')).toHaveLength(0);
  });

  it('the worker killed with SIGKILL during a retry wait still delivers after restart', { timeout: 180_000 }, async () => {
    // The receiver fails every attempt until the worker is dead; the subscription retries every 10 s
    // (WEBHOOK_RETRY_MIN_DELAY_SECONDS is 1 here), so the test waits seconds, not the default's minute.
    let killed = false;
    receiver.respond('/hooks/flaky', () => (killed ? { status: 200 } : { status: 503, body: 'try later' }));
    const sub = await subscribe('/hooks/flaky', ['ticket.created'], { retrySchedule: { delaysSeconds: [10, 10, 10, 10, 10, 10] } });
    await createTicket('Retry me');
    await expect.poll(() => deliveriesTo('/hooks/flaky').length, waiting('the first attempt')).toBeGreaterThan(0);
    const first = deliveriesTo('/hooks/flaky')[0];

    // The kill lands in a retry wait, known from state rather than timing: the newest failed attempt
    // is in the log with its next attempt still ahead (by a margin far beyond a kill's milliseconds),
    // and the receiver has had no request since it. A slow machine that misses one wait takes the next.
    const margin = 3_000;
    const wait = await vi.waitFor(async () => {
      const r = await api('GET', `/webhooks/${sub.id}/deliveries?status=failed`, { origin, key: apiKey });
      const latest = r.body.data[0];
      expect(latest, 'a failed attempt in the log').toBeDefined();
      const received = deliveriesTo('/hooks/flaky').length;
      expect(received, 'no attempt out since the newest one logged').toBe(latest.attempt);
      expect(new Date(latest.nextAttemptAt).getTime() - Date.now(), 'the next attempt still ahead').toBeGreaterThan(margin);
      return { latest, received };
    }, waiting('a retry wait', 90_000));
    expect(wait.latest).toMatchObject({ httpStatus: 503, responseExcerpt: 'try later', maxAttempts: 7 });
    const nextAt = new Date(wait.latest.nextAttemptAt).getTime();
    // Ten seconds, ±10% jitter.
    expect(nextAt - new Date(wait.latest.attemptedAt).getTime()).toBeGreaterThanOrEqual(9_000);
    expect(nextAt - new Date(wait.latest.attemptedAt).getTime()).toBeLessThanOrEqual(11_000);

    await deployment.worker.kill('SIGKILL');
    killed = true;
    expect(deliveriesTo('/hooks/flaky'), 'nothing went out between the check and the kill').toHaveLength(wait.received);
    if (!split) deployment = await deploy();
    else deployment.worker = await startService('worker', { temporalAddress: dev.address });

    await expect.poll(() => deliveriesTo('/hooks/flaky').length, waiting('the retry', 120_000)).toBeGreaterThan(wait.received);
    const retried = deliveriesTo('/hooks/flaky')[wait.received];
    expect(retried.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(retried.body).toBe(first.body);
    verified(retried, sub.secret);
    const ok = await vi.waitFor(async () => {
      const r = await api('GET', `/webhooks/${sub.id}/deliveries?status=succeeded`, { origin, key: apiKey });
      expect(r.body.data[0], 'the retry in the log').toBeDefined();
      return r.body.data[0];
    }, waiting('the retry in the log'));
    // The attempt after the wait the kill interrupted, made by the restarted worker, not before its time.
    expect(ok).toMatchObject({ attempt: wait.latest.attempt + 1, trigger: 'scheduled', httpStatus: 200 });
    expect(new Date(ok.attemptedAt).getTime()).toBeGreaterThanOrEqual(nextAt);
    expect(deliveriesTo('/hooks/flaky')).toHaveLength(wait.received + 1);
  });

  it('the worker and the relay killed with SIGKILL mid-fan-out lose nothing; a repeat carries the same webhook-id', { timeout: 240_000 }, async () => {
    const hooks = ['/hooks/fan-a', '/hooks/fan-b', '/hooks/fan-c'];
    // A little slow, so that attempts are in flight when the processes die.
    for (const h of hooks) receiver.respond(h, async () => (await new Promise((r) => setTimeout(r, 100)), { status: 200 }));
    const subs = await Promise.all(hooks.map((h) => subscribe(h, ['ticket.created'])));
    const tickets: number[] = [];
    for (let i = 0; i < 12; i++) tickets.push((await createTicket(`Fan-out ${i}`)).id);
    await expect.poll(() => hooks.some((h) => deliveriesTo(h).length > 0), waiting('the first deliveries')).toBe(true);
    // Every process relays and (one of them) runs the worker: all die at once.
    await deployment.worker.kill('SIGKILL');
    await deployment.api.kill('SIGKILL');
    deployment = await deploy();

    for (const [i, h] of hooks.entries()) {
      const ticketIds = () => new Set(deliveriesTo(h).map((r) => verified(r, subs[i].secret).data.id as number));
      await expect.poll(() => ticketIds().size, waiting(`every event at ${h}`, 180_000)).toBe(tickets.length);
      expect([...ticketIds()].sort()).toEqual([...tickets].sort());
      // A duplicate (an attempt cut short by the kill) is the same delivery: same webhook-id, same body.
      const byId = new Map<string, Set<string>>();
      for (const r of deliveriesTo(h)) byId.set(r.headers['webhook-id'], (byId.get(r.headers['webhook-id']) ?? new Set()).add(r.body));
      expect(byId.size).toBe(tickets.length);
      for (const bodies of byId.values()) expect(bodies.size).toBe(1);
    }
  });

  it('the worker killed with SIGKILL mid-import: a restart finishes the bulk jobs, each ticket made once, each event delivered', { timeout: 240_000 }, async () => {
    receiver.respond('/hooks/import', { status: 204 });
    const sub = await subscribe('/hooks/import', ['ticket.created']);
    const item = (i: number) => ({
      create: { boardId: board.id, subject: `Imported ${i}`, requesterEmail: 'customer@example.com', fields: [{ fieldId: board.productField, value: 'Web' }] },
    });
    // Two jobs of 50: the workspace runs them one after another, 10 items a chunk with a pause
    // after each, so the kill below lands with most of the 100 items still to do.
    const jobs: string[] = [];
    for (let j = 0; j < 2; j++) {
      const res = await api('POST', '/tickets/bulk', { origin, key: apiKey, body: { items: Array.from({ length: 50 }, (_, i) => item(j * 50 + i)) } });
      expect(res.status, res.text).toBe(202);
      jobs.push(res.body.id);
    }
    const job = async (id: string) => (await api('GET', `/jobs/${id}`, { origin, key: apiKey })).body;
    await expect.poll(async () => (await job(jobs[0])).processed, waiting('the first chunk')).toBeGreaterThan(0);
    const killedAt = Date.now();
    await deployment.worker.kill('SIGKILL');
    if (!split) deployment = await deploy();
    else deployment.worker = await startService('worker', { temporalAddress: dev.address });

    const finished = [];
    for (const id of jobs) {
      await expect.poll(async () => (await job(id)).status, waiting(`job ${id}`, 180_000)).toBe('completed');
      finished.push(await job(id));
    }
    // The kill interrupted the import (the last job finished after it), not a finished one.
    expect(new Date(finished[1].finishedAt).getTime()).toBeGreaterThan(killedAt);
    const ticketIds = finished.flatMap((j) => j.items.map((i: { status: string; ticketId: number }) => (expect(i.status).toBe('succeeded'), i.ticketId)));
    expect(new Set(ticketIds).size).toBe(100);
    // One ticket.created per item's ticket and no other: a ticket made twice would be an event
    // for a ticket id no item names.
    const delivered = () => new Set(deliveriesTo('/hooks/import').map((r) => verified(r, sub.secret).data.id as number));
    await expect.poll(() => delivered().size, waiting('every ticket.created', 180_000)).toBe(100);
    expect([...delivered()].sort()).toEqual([...ticketIds].sort());
  });

  it('the API killed between commit and workflow start still delivers', { timeout: 180_000 }, async () => {
    receiver.respond('/hooks/after-crash', { status: 200 });
    const sub = await subscribe('/hooks/after-crash', ['ticket.created']);
    // Nothing may start workflows meanwhile: the worker (and its relay) stops, and the API comes
    // back with a Temporal address where nothing listens, so the event is committed and stays
    // in the outbox.
    await deployment.api.kill('SIGTERM');
    await deployment.worker.kill('SIGTERM');
    const nowhere = `127.0.0.1:${await freePort()}`;
    const crippled = await startService(split ? 'api' : 'all', { temporalAddress: nowhere, port: httpPort, answering: true });
    const ticket = await createTicket('Committed, then the API died');
    await new Promise((r) => setTimeout(r, 1_000));
    await crippled.kill('SIGKILL');
    expect(deliveriesTo('/hooks/after-crash')).toHaveLength(0);

    deployment = await deploy();
    await expect.poll(() => deliveriesTo('/hooks/after-crash').length, waiting('the delivery', 120_000)).toBeGreaterThan(0);
    const req = deliveriesTo('/hooks/after-crash')[0];
    expect(verified(req, sub.secret)).toMatchObject({ type: 'ticket.created', data: { id: ticket.id } });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(deliveriesTo('/hooks/after-crash')).toHaveLength(1);
  });
});
