// One HTTP POST of a webhook: node:https with the URL policy's lookup hook (so the socket only
// opens to checked addresses; names resolved in the workspace's lane of host-resolver.ts), no
// redirects (node:https never follows them: a 3xx is a failure), a total time limit, and the first
// 1 KiB of the answer kept for the log. Connections are kept alive for reuse within bounds
// (delivery-agent.ts): an idle time-out, a cap per host and one in all.
import https from 'node:https';
import tls from 'node:tls';
import { config } from '../../config.ts';
import { AGENT_IDLE_MS, DELIVERY_TIMEOUT_MS } from './constants.ts';
import { DeliveryAgent, type AgentBounds, type DeliveryRequestOptions } from './delivery-agent.ts';
import { webhookHosts, type HostResolver } from './host-resolver.ts';
import { checkWebhookUrl, guardedLookup } from './url-policy.ts';

const USER_AGENT = 'Service-Webhooks/1.0';
const EXCERPT_BYTES = 1024;
const STALE_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

export interface SenderOptions {
  allowPrivateTargets?: boolean;
  /**
   * Extra certificate authorities, trusted besides Node's bundled roots (tests use their own
   * CA). Without it the default store applies, which includes NODE_EXTRA_CA_CERTS.
   */
  ca?: string | Buffer | (string | Buffer)[];
  timeoutMs?: number;
  /** Name resolution before the policy's check; defaults to the process's webhook host resolver (tests stand in for DNS). */
  hosts?: Pick<HostResolver, 'resolve'>;
  /**
   * The connections' bounds. Defaults: WEBHOOK_MAX_CONNECTIONS in all; per receiver and workspace,
   * as many as the workspace may have attempts in flight (WEBHOOK_WORKSPACE_MAX_IN_FLIGHT), so the
   * cap never holds back what the workspace's cap allows; closed after AGENT_IDLE_MS idle.
   */
  sockets?: Partial<AgentBounds>;
}

/** Whose attempt it is: its host name is resolved in that workspace's lane (host-resolver.ts). */
export interface SendContext {
  workspaceId: number;
}

interface SendResult {
  /** The status of the answer; undefined when none came (refused, blocked, timed out…). */
  httpStatus?: number;
  responseExcerpt?: string;
  /** The answer's Retry-After header, as sent (parsed by the caller for 429 and 503). */
  retryAfter?: string;
  error?: string;
  durationMs: number;
}

/** The exact body of every attempt of an event: its envelope, top-level members in the spec's order. */
export function deliveryBody(envelope: unknown): string {
  if (!envelope || typeof envelope !== 'object' || Array.isArray(envelope)) return JSON.stringify(envelope);
  // The payload column is jsonb, which stores keys in its own order; put the envelope's first.
  const order = ['id', 'type', 'occurredAt', 'workspace', 'actor', 'changes', 'data'];
  const record = envelope as Record<string, unknown>;
  const ordered: Record<string, unknown> = {};
  for (const key of order) if (key in record) ordered[key] = record[key];
  for (const key of Object.keys(record)) if (!(key in ordered)) ordered[key] = record[key];
  return JSON.stringify(ordered);
}

export function createWebhookSender(options: SenderOptions = {}) {
  const extraCa = options.ca === undefined ? undefined : Array.isArray(options.ca) ? options.ca : [options.ca];
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const hosts = options.hosts ?? webhookHosts;
  // Keep-alive: consecutive deliveries to one receiver reuse the TLS connection. The lookup hook
  // (given per request: it resolves in the attempt's workspace's lane) runs for each new
  // connection, so reuse never skips the address check.
  const bounds: AgentBounds = { total: config.webhooks.maxConnections, perHost: config.webhooks.workspaceMaxInFlight, idleMs: AGENT_IDLE_MS, ...options.sockets };
  const agent = new DeliveryAgent(bounds, extraCa ? { ca: [...tls.rootCertificates, ...extraCa] } : {});

  async function send(url: string, headers: Record<string, string>, body: string, context: SendContext): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    // Node skips `lookup` for IP literals; the policy judges those here, as on save.
    const target = checkWebhookUrl(url, { allowPrivateTargets: options.allowPrivateTargets });
    if (!target.ok) return { error: `URL refused by the webhook URL policy: ${target.message}`, durationMs: elapsed() };

    // A kept-alive connection that the receiver dropped while it was idle fails before any answer
    // (ECONNRESET/EPIPE on a reused socket): retried once at once, on a new connection, rather
    // than counted as the receiver's failure. Should the receiver have seen it after all, the
    // duplicate carries the same webhook-id.
    const lookup = guardedLookup({ allowPrivateTargets: options.allowPrivateTargets, resolve: (name) => hosts.resolve(name, context.workspaceId) });
    const connection: DeliveryRequestOptions = { agent, lookup, workspaceId: context.workspaceId };
    const first = await post(target.url, headers, body, started, connection);
    if (!first.staleSocket) return first.result;
    return (await post(target.url, headers, body, started, connection)).result;
  }

  function post(url: URL, headers: Record<string, string>, body: string, started: number, connection: DeliveryRequestOptions): Promise<{ result: SendResult; staleSocket: boolean }> {
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise((resolve) => {
      let settled = false;
      let status: number | undefined;
      let retryAfter: string | undefined;
      const chunks: Buffer[] = [];
      let received = 0;
      const finish = (error?: string, staleSocket = false) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const excerpt = status === undefined ? undefined : excerptOf(chunks);
        resolve({ result: { httpStatus: status, responseExcerpt: excerpt, ...(retryAfter === undefined ? {} : { retryAfter }), error, durationMs: elapsed() }, staleSocket });
      };

      const req = https.request(
        url,
        {
          ...connection,
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', 'user-agent': USER_AGENT, 'content-length': String(Buffer.byteLength(body)) },
        },
        (res) => {
          status = res.statusCode;
          const header = res.headers['retry-after'];
          if (typeof header === 'string') retryAfter = header;
          res.on('data', (chunk: Buffer) => {
            if (received < EXCERPT_BYTES) chunks.push(chunk);
            received += chunk.length;
            // Enough for the log: stop reading a large answer (this connection is not reused).
            if (received >= EXCERPT_BYTES) {
              finish();
              res.destroy();
            }
          });
          res.on('end', () => finish());
          res.on('close', () => finish());
        },
      );
      // The status decides once it has arrived in time; a slow body only shortens the excerpt.
      const timer = setTimeout(() => {
        // No connection of its own yet: every one it may use was busy (delivery-agent.ts).
        const waited = !req.socket ? `; no connection was free (this workspace's ${agent.bounds.perHost} to the receiver, or the worker's ${agent.bounds.total} in all, were busy)` : '';
        finish(status === undefined ? `no answer within ${timeoutMs / 1000} s${waited}` : undefined);
        req.destroy();
      }, timeoutMs);
      req.on('error', (err: NodeJS.ErrnoException) =>
        finish(describeError(err), status === undefined && req.reusedSocket && STALE_SOCKET_CODES.has(err.code ?? '')),
      );
      req.end(body);
    });
  }

  return { send, close: () => agent.destroy() };
}

function excerptOf(chunks: Buffer[]): string {
  // PostgreSQL text cannot hold NUL; a binary answer is still worth a look.
  return Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8').replaceAll('\u0000', '');
}

function describeError(err: NodeJS.ErrnoException): string {
  return err.code && !err.message.includes(err.code) ? `${err.code}: ${err.message}` : err.message;
}
