// A webhook receiver for the Ticketing Service, for plain node:http / node:https: it verifies the
// Standard Webhooks signature, records the event under its `webhook-id` (a second arrival of the
// same id is acknowledged and not processed again), answers 2xx at once, and does the work after.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/** The envelope of every delivery. */
export interface WebhookEvent {
  id: string; // evt_…, equal to the webhook-id header
  type: string; // ticket.created, ticket.updated, ticket.state_changed, ticket.comment_added, webhook.test
  occurredAt: string;
  workspace: string;
  actor: { id: number; name: string } | null;
  changes: unknown;
  data: Record<string, unknown>;
}

/** Where verified events wait for processing. In production: a table with a unique webhook_id. */
export interface Inbox {
  /** Records the event; false when this webhook-id was recorded before. */
  add(webhookId: string, event: WebhookEvent): Promise<boolean>;
}

// A delivery carries one ticket (the API takes bodies up to 1 MiB) and, for updates, the change;
// the cap only stops a flood from filling memory.
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export function createWebhookHandler(options: { secret: string; inbox: Inbox }): RequestListener {
  const webhook = new Webhook(options.secret); // whsec_… as shown once when subscribing or rotating
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') return reply(res, 405);
    const body = await readBody(req);
    if (body === undefined) return reply(res, 413); // too large (or the sender went away)

    const headers = {
      'webhook-id': header(req, 'webhook-id'),
      'webhook-timestamp': header(req, 'webhook-timestamp'),
      'webhook-signature': header(req, 'webhook-signature'),
    };
    let event: WebhookEvent;
    try {
      // The exact bytes received: parsing and re-serialising first would change what was signed.
      event = webhook.verify(body, headers) as WebhookEvent;
    } catch (err) {
      // Missing headers, no matching signature, or a timestamp more than 5 minutes off (a replay).
      console.warn(`rejected: ${err instanceof WebhookVerificationError ? err.message : 'body is not JSON'}`);
      return reply(res, err instanceof WebhookVerificationError ? 401 : 400);
    }

    try {
      // Only verified requests reach the inbox, so a forgery cannot mark an id as seen.
      if (!(await options.inbox.add(headers['webhook-id'], event))) {
        console.log(`duplicate ${headers['webhook-id']}: acknowledged, not processed again`);
      }
    } catch (err) {
      // Not recorded: answer an error so the service retries later; never acknowledge what is not kept.
      console.error(`could not record ${headers['webhook-id']}:`, err);
      return reply(res, 503);
    }
    reply(res, 204);
  };
  // node ignores what a listener returns; `handle` answers every outcome itself (reading never rejects).
  return (req, res) => void handle(req, res);
}

/**
 * An inbox in memory: fine for trying things, but a restart forgets what was queued and seen.
 * Events are processed one at a time, in arrival order, after the answer has been written.
 */
export function memoryInbox(work: (event: WebhookEvent) => Promise<void>): Inbox {
  // Retries of a delivery span about 35 hours and a manual re-send can come later: remember ids for 30 days.
  const rememberMs = 30 * 24 * 60 * 60 * 1000;
  const seen = new Map<string, number>(); // webhook-id → when to forget it, oldest first
  const queue: WebhookEvent[] = [];
  let draining = false;

  async function drain() {
    if (draining) return;
    draining = true;
    for (let event = queue.shift(); event; event = queue.shift()) {
      try {
        await work(event);
      } catch (err) {
        // Acknowledged already, so the service will not send it again: keep it somewhere to retry.
        console.error(`processing ${event.id} failed:`, err);
      }
    }
    draining = false;
  }

  return {
    async add(webhookId, event) {
      const now = Date.now();
      for (const [id, forgetAt] of seen) {
        if (forgetAt > now) break;
        seen.delete(id);
      }
      if (seen.has(webhookId)) return false;
      seen.set(webhookId, now + rememberMs);
      queue.push(event);
      setImmediate(() => void drain()); // after the 2xx is written, not before; drain catches each failure
      return true;
    },
  };
}

/**
 * Drops older news: ticket events carry the ticket's `version` (one more with each change), and a
 * retry of an older delivery can arrive after a newer one. Work runs only for an event whose
 * version is at least the highest seen for its ticket (equal: one change that sent two events,
 * e.g. ticket.updated and ticket.state_changed). In production keep the versions with your copy
 * of the ticket (`UPDATE … WHERE version <= $new`).
 */
export function skipStale(work: (event: WebhookEvent) => Promise<void>): (event: WebhookEvent) => Promise<void> {
  const versions = new Map<number, number>(); // ticket id → highest version processed
  return async (event) => {
    const { id: ticketId, version } = event.data as { id?: unknown; version?: unknown };
    if (typeof ticketId !== 'number' || typeof version !== 'number') return work(event); // not a ticket event (webhook.test)
    const held = versions.get(ticketId) ?? 0;
    if (version < held) {
      console.log(`stale ${event.id}: ticket ${ticketId} version ${version} is older than ${held}, dropped`);
      return;
    }
    versions.set(ticketId, version);
    await work(event);
  };
}

function header(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  return typeof value === 'string' ? value : '';
}

/** The body as text; undefined when it exceeds MAX_BODY_BYTES or the connection fails. */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else resolve(undefined);
    });
    req.on('end', () => resolve(size <= MAX_BODY_BYTES ? Buffer.concat(chunks).toString('utf8') : undefined));
    req.on('error', () => resolve(undefined));
  });
}

function reply(res: ServerResponse, status: number) {
  res.writeHead(status).end();
}
