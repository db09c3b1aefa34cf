// A webhook receiver for tests: HTTPS on port 8443 (the URL policy's other allowed port) with a
// certificate from a throwaway CA made here with the openssl CLI. It records every request and
// answers per path with what the test set.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TestCa {
  /** The CA certificate (PEM) to trust. */
  ca: string;
  key: string;
  cert: string;
}

/** Loopback addresses the receiver may bind, in order of preference (all in the certificate). */
const RECEIVER_HOSTS = Array.from({ length: 9 }, (_, i) => `127.0.0.${i + 1}`);
export const RECEIVER_PORT = 8443;

/** A CA and a server certificate it signed, for the receiver's loopback addresses, localhost and `names` (e.g. `*.hooks.test`). */
export function createTestCa(names: string[] = []): TestCa {
  const dir = mkdtempSync(path.join(tmpdir(), 'webhook-ca-'));
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    openssl('req', '-x509', ...ecKey, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '3', '-subj', '/CN=Webhook test CA',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
    openssl('req', ...ecKey, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=localhost');
    const altNames = [...RECEIVER_HOSTS.map((h) => `IP:${h}`), 'DNS:localhost', ...names.map((n) => `DNS:${n}`)].join(',');
    writeFileSync(file('ext.cnf'), `subjectAltName=${altNames}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`);
    openssl('x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial',
      '-out', file('server.pem'), '-days', '3', '-extfile', file('ext.cnf'));
    return { ca: readFileSync(file('ca.pem'), 'utf8'), key: readFileSync(file('server.key'), 'utf8'), cert: readFileSync(file('server.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ReceivedRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** performance.now() when the request had arrived whole, and when its exchange ended (answered, or the sender hung up). */
  arrivedAt: number;
  closedAt?: number;
  /** The status answered (absent while held, or when the sender had hung up before). */
  status?: number;
}

export interface Answer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

/** How a path answers: a fixed answer, or one computed from the request (possibly later). */
export type Responder = Answer | ((req: ReceivedRequest) => Answer | Promise<Answer>);

export interface Receiver {
  /** `https://<host>:8443` */
  origin: string;
  /** The loopback address it listens on. */
  host: string;
  /** TLS connections it accepted so far. */
  readonly connections: number;
  /** TLS connections open now. */
  readonly open: number;
  /** For each connection closed so far: how long it had been idle (ms since its last answer ended) when it closed. */
  readonly idleAtClose: number[];
  requests: ReceivedRequest[];
  /** Requests to one path, in arrival order. */
  received(path: string): ReceivedRequest[];
  respond(path: string, responder: Responder): void;
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1:8443, or on the next loopback address when another test file holds that
 * one (port 8443 is the point: the URL policy allows 443 and 8443 only). `neverClose`: it keeps
 * idle connections open for good (no keep-alive time-out), as some receivers do.
 */
export async function startReceiver(tls: TestCa, options: { neverClose?: boolean } = {}): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const responders = new Map<string, Responder>();
  const server = https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    // eslint-disable-next-line @typescript-eslint/no-misused-promises -- a failing responder is an unhandled rejection, which fails the vitest run
    req.on('end', async () => {
      const received: ReceivedRequest = {
        path: req.url ?? '/',
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')])),
        body: Buffer.concat(chunks).toString('utf8'),
        arrivedAt: performance.now(),
      };
      requests.push(received);
      res.on('close', () => void (received.closedAt ??= performance.now()));
      const responder = responders.get(received.path) ?? { status: 404, body: 'no such hook' };
      const answer = typeof responder === 'function' ? await responder(received) : responder;
      if (received.closedAt === undefined) received.status = answer.status;
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
      res.end(answer.body ?? '', () => lastAnswerEnd.set(req.socket, performance.now()));
    });
  });
  let connections = 0;
  let open = 0;
  const idleAtClose: number[] = [];
  const lastAnswerEnd = new WeakMap<object, number>();
  server.on('secureConnection', (socket) => {
    connections++;
    open++;
    socket.once('close', () => {
      open--;
      const last = lastAnswerEnd.get(socket);
      if (last !== undefined) idleAtClose.push(performance.now() - last);
    });
  });
  if (options.neverClose) server.keepAliveTimeout = 0;

  let host: string | undefined;
  for (const candidate of RECEIVER_HOSTS) {
    const error = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      server.once('error', resolve);
      server.listen({ host: candidate, port: RECEIVER_PORT, exclusive: true }, () => {
        server.off('error', resolve);
        resolve(undefined);
      });
    });
    if (!error) {
      host = candidate;
      break;
    }
    if (error.code !== 'EADDRINUSE') throw error;
  }
  if (!host) throw new Error(`no loopback address from ${RECEIVER_HOSTS[0]} to ${RECEIVER_HOSTS.at(-1)} has port ${RECEIVER_PORT} free`);

  return {
    origin: `https://${host}:${RECEIVER_PORT}`,
    host,
    get connections() {
      return connections;
    },
    get open() {
      return open;
    },
    idleAtClose,
    requests,
    received: (p) => requests.filter((r) => r.path === p),
    respond: (p, responder) => void responders.set(p, responder),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
