// The listen command (examples/listen) as an integrator runs it: its own process, given only the
// API's base URL and a key, forwarding the workspace's events to a receiver on localhost, signed
// with the secret it prints; stopped and started again, it resumes after the last event forwarded.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestWorkspace } from '../support/fixtures.ts';
import { supportBoard } from '../tickets/helpers.ts';
import { serveApp } from '../support/http.ts';
import { runExample } from './support.ts';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

let app: Awaited<ReturnType<typeof serveApp>>;
let receiver: http.Server;
let receiverUrl: string;
const received: Received[] = [];
let dir: string;

beforeAll(async () => {
  app = await serveApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'listen-'));
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://localhost:${(receiver.address() as AddressInfo).port}/webhooks`;
});
afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve));
  await app?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function until<T>(probe: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('examples/listen', () => {
  it('is a package with a bin', () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../examples/listen/package.json'), 'utf8'));
    const bin = path.resolve(import.meta.dirname, '../../examples/listen', pkg.bin['ticketing-listen']);
    expect(fs.readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env -S npx tsx\n')).toBe(true);
    expect(pkg.dependencies).toHaveProperty('standardwebhooks');
  });

  it('forwards a ticket event to localhost, signed as a delivery is, and resumes after a restart', { timeout: 120_000 }, async () => {
    const ws = await createTestWorkspace('Listen');
    const key = (await ws.key({ name: 'Listen' })).value;
    const api = (method: string, p: string, body?: unknown) =>
      fetch(`${app.origin}/public/v1${p}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: await r.json() }));
    const env = { TICKETING_API_URL: `${app.origin}/public/v1`, TICKETING_API_KEY: key, LISTEN_FORWARD_TO: receiverUrl, LISTEN_STATE_FILE: path.join(dir, 'state.json'), LISTEN_POLL_MS: '100' };

    // Another user's trap at the name a temporary file of the state would have: never followed.
    const victim = path.join(dir, 'victim');
    fs.writeFileSync(victim, 'untouched');
    fs.symlinkSync(victim, `${env.LISTEN_STATE_FILE}.tmp`);

    const listen = runExample('listen/listen.ts', env);
    const [, secret] = await listen.waitFor(/Signing secret \(verify with it in your receiver\): (whsec_\S+)/);
    await listen.waitFor(/Following the feed/);
    const s = supportBoard(ws);
    const created = await api('POST', '/tickets', { boardId: s.board.id, subject: 'Heard locally', requesterEmail: 'a@example.com', fields: [{ fieldId: s.product, value: 'Web' }] });
    expect(created.status).toBe(201);

    const first = await until(() => received.find((r) => JSON.parse(r.body).data?.id === created.body.id), 'the ticket.created POST');
    const event = new Webhook(secret).verify(first.body, first.headers as Record<string, string>) as { id: string; type: string; data: { version: number } };
    expect(event).toMatchObject({ type: 'ticket.created', data: { ...created.body } });
    expect(first.headers['webhook-id']).toBe(event.id);
    expect(first.headers['user-agent']).toBe('Service-Webhooks/1.0');
    expect(first.headers['content-type']).toBe('application/json');
    // The body is the feed's entry, which is the body a real delivery carries.
    const feed = await api('GET', `/events?ticketId=${created.body.id}`);
    expect(first.body).toBe(JSON.stringify(feed.body.data[0]));
    await listen.waitFor(new RegExp(`ticket\\.created ${event.id} -> 204`));
    await listen.stop();
    // The state holds a signing secret: owner-only, written under a name nobody can guess beforehand.
    expect(fs.statSync(env.LISTEN_STATE_FILE).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(victim, 'utf8')).toBe('untouched');

    // While it is stopped the ticket changes; started again, it forwards only that, with the same secret.
    expect((await api('PATCH', `/tickets/${created.body.id}`, { subject: 'Changed while away' })).status).toBe(200);
    const count = received.length;
    const again = runExample('listen/listen.ts', env);
    const [, sameSecret] = await again.waitFor(/Signing secret \(verify with it in your receiver\): (whsec_\S+)/);
    expect(sameSecret).toBe(secret);
    const next = await until(() => received[count], 'the ticket.updated POST');
    const updated = new Webhook(secret).verify(next.body, next.headers as Record<string, string>) as { type: string; data: { version: number } };
    expect(updated).toMatchObject({ type: 'ticket.updated', data: { subject: 'Changed while away', version: 2 } });
    await again.waitFor(/ticket\.updated \S+ -> 204/);
    await again.stop();
    expect(received.slice(count).map((r) => JSON.parse(r.body).type)).toEqual(['ticket.updated']);
  });
});
