// Operations, on the service as `npm start` runs it with no TEMPORAL_ADDRESS (built once per run
// as `npm start` builds it, support/built-service.ts, on node with scripts/start.sh's flags; its
// own Temporal dev server): the dev server killed with SIGKILL while tickets are being
// created comes back by itself and every event is delivered once, without restarting the
// service; /readyz answers; SIGTERM lets a request in flight finish, refuses new connections and
// exits 0. PostgreSQL with DATABASE_URL, else the embedded PGlite.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { connect, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { api } from '../support/fixtures.ts';
import { copyMigratedPglite } from '../support/pglite-template.ts';
import { onFreePorts } from '../support/temporal.ts';
import { builtServiceCommand } from '../support/built-service.ts';
import { createTestCa, startReceiver, type Receiver } from '../webhooks/receiver.ts';

const root = path.resolve(import.meta.dirname, '../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ticketing-e2e-operations-'));
// The service starts on the migrated embedded database (its first start is test/e2e/start.test.ts's).
copyMigratedPglite(dataDir);
const caFile = path.join(dataDir, 'receiver-ca.pem');

let service: ChildProcess;
let output = '';
let receiver: Receiver;
let httpPort: number;
let origin: string;
let apiKey: string;

/** Polling for the service: 60 s unless said, every 200 ms. */
const polling = (timeout = 60_000) => ({ timeout, interval: 200 });
/** The message of a failed wait for `what`: what the service printed last. */
const waitingFor = (what: string) => `waiting for ${what}\n${output.slice(-4000)}`;

/** The running Temporal dev servers whose parent is `pid` (read from /proc). */
function devServerChildren(pid: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === pid && fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('start-dev');
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

const acceptsConnections = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

let ticketBody: () => Record<string, unknown>;

beforeAll(async () => {
  const tls = createTestCa();
  fs.writeFileSync(caFile, tls.ca);
  receiver = await startReceiver(tls);
  const command = await builtServiceCommand('all');
  // Fresh ports again if one was taken meanwhile (onFreePorts).
  await onFreePorts(async (ports) => {
    httpPort = ports.http;
    origin = `http://127.0.0.1:${ports.http}`;
    output = '';
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      DATA_DIR: dataDir,
      PORT: String(ports.http),
      TEMPORAL_PORT: String(ports.temporal),
      TEMPORAL_UI_PORT: String(ports.ui),
      TEMPORAL_TASK_QUEUE: 'e2e-operations',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      NODE_EXTRA_CA_CERTS: caFile,
    };
    delete env.TEMPORAL_ADDRESS;
    // Node itself (not npm or sh): the signals reach the service itself.
    service = spawn(process.execPath, command.args, { cwd: root, env: { ...env, ...command.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    service.stdout!.on('data', (d) => (output += d));
    service.stderr!.on('data', (d) => (output += d));
    await vi.waitFor(() => expect(output.includes('Database:') || service.exitCode !== null, waitingFor('the banner')).toBe(true), polling(150_000));
    if (!output.includes('Database:')) throw new Error(output); // exited first
  });
  apiKey = /API key \(shown once, every scope\): (\S+)/.exec(output)![1]!;
  const support = (await api('GET', '/boards', { origin, key: apiKey })).body.data.find((b: { name: string }) => b.name === 'Support');
  const product = support.fields.find((f: { name: string }) => f.name === 'Product').id;
  ticketBody = () => ({ boardId: support.id, subject: 'Ops', description: 'x', requesterEmail: 'c@example.com', fields: [{ fieldId: product, value: 'Web' }] });
}, 240_000);

afterAll(async () => {
  if (service && service.exitCode === null && service.signalCode === null) {
    for (const pid of devServerChildren(service.pid!)) process.kill(pid, 'SIGKILL');
    service.kill('SIGKILL');
  }
  await receiver?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('operations of `npm start` on its own Temporal dev server', () => {
  it('the dev server killed mid-traffic is restarted; every event is delivered once, without restarting the service', { timeout: 240_000 }, async () => {
    receiver.respond('/hooks/ops', { status: 204 });
    expect((await api('POST', '/webhooks', { origin, key: apiKey, body: { url: `${receiver.origin}/hooks/ops`, events: ['ticket.created'] } })).status).toBe(201);
    const created: number[] = [];
    const createTicket = async () => {
      const res = await api('POST', '/tickets', { origin, key: apiKey, body: ticketBody() });
      expect(res.status).toBe(201);
      created.push(res.body.id);
    };
    for (let i = 0; i < 5; i++) await createTicket();
    await vi.waitFor(() => expect(receiver.received('/hooks/ops').length, waitingFor('the first deliveries')).toBeGreaterThanOrEqual(5), polling());
    await vi.waitFor(async () => expect((await fetch(`http://127.0.0.1:${httpPort}/readyz`)).status, waitingFor('readiness')).toBe(200), polling());

    const [killed] = devServerChildren(service.pid!);
    expect(killed).toBeDefined();
    process.kill(killed, 'SIGKILL');
    // Tickets keep coming while the server is down and while it comes back.
    for (let i = 0; i < 20; i++) {
      await createTicket();
      await new Promise((r) => setTimeout(r, 100));
    }

    const received = await vi.waitFor(() => {
      const ids = receiver.received('/hooks/ops').map((r) => JSON.parse(r.body).data.id as number);
      expect(ids.length, waitingFor('every delivery')).toBeGreaterThanOrEqual(created.length);
      return ids;
    }, polling(120_000));
    expect(new Set(received)).toEqual(new Set(created));
    expect(received).toHaveLength(25);
    const [restarted] = devServerChildren(service.pid!);
    expect(restarted).toBeDefined();
    expect(restarted).not.toBe(killed);
    expect(output).toContain('Temporal dev server restarted');

    const ready = await vi.waitFor(async () => {
      const res = await fetch(`http://127.0.0.1:${httpPort}/readyz`);
      expect(res.status, waitingFor('readiness again')).toBe(200);
      return res.json();
    }, polling());
    expect(ready).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok', temporal: 'ok', worker: 'ok' } });
    // Late doubles would show by now: the relay polls every second at most.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(receiver.received('/hooks/ops')).toHaveLength(25);
  });

  it('SIGTERM: the request in flight gets its answer, new connections are refused, exit code 0', { timeout: 120_000 }, async () => {
    const body = JSON.stringify(ticketBody());
    const socket: Socket = connect({ host: '127.0.0.1', port: httpPort });
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    let answer = '';
    socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // Headers and half the body: the request is in flight, its handler waiting for the rest.
    socket.write(
      `POST /public/v1/tickets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${apiKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    const exited = new Promise<number | null>((resolve) => service.once('exit', (code) => resolve(code)));
    service.kill('SIGTERM');
    await vi.waitFor(async () => expect(await acceptsConnections(httpPort), waitingFor('new connections refused')).toBe(false), polling());

    socket.write(body.slice(10));
    await vi.waitFor(() => expect(answer, waitingFor('the answer')).toMatch(/\r\n\r\n\{.*\}$/s), polling());
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).subject).toBe('Ops');
    await ended;
    expect(await exited).toBe(0);
  });
});
