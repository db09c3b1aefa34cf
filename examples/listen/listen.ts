#!/usr/bin/env -S npx tsx
// ticketing-listen: develop a webhook receiver on your machine. Follows the events feed
// (GET /events?after=…) with an API key and POSTs each event to a local URL, signed the Standard
// Webhooks way with a secret of its own (printed at start), with the headers a real delivery has.
// Its place in the feed and its secret are kept in a state file, so a restart resumes where it
// stopped and the receiver keeps verifying with the same secret.
//
//   TICKETING_API_URL=https://tickets.example.com/public/v1 TICKETING_API_KEY=svc_… \
//   LISTEN_FORWARD_TO=http://localhost:8080/webhooks npx tsx listen.ts
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';

const apiUrl = (process.env.TICKETING_API_URL ?? 'http://127.0.0.1:3000/public/v1').replace(/\/+$/, '');
const apiKey = process.env.TICKETING_API_KEY;
const forwardTo = process.env.LISTEN_FORWARD_TO ?? process.argv[2];
const stateFile = path.resolve(process.env.LISTEN_STATE_FILE ?? '.ticketing-listen.json');
const pollMs = Number(process.env.LISTEN_POLL_MS ?? 1000);
if (!apiKey || !forwardTo) {
  console.error('Set TICKETING_API_KEY (a key with tickets:read) and LISTEN_FORWARD_TO (or pass the local URL as the argument)');
  process.exit(1);
}

/** What survives a restart: the signing secret and the last event forwarded. */
interface State {
  secret: string;
  /** The id of the last event forwarded: the feed continues after it. */
  after?: string;
}

function loadState(): State {
  try {
    return JSON.parse(fs.readFileSync(stateFile, 'utf8')) as State;
  } catch {
    return { secret: `whsec_${crypto.randomBytes(32).toString('base64')}` };
  }
}

function saveState(state: State) {
  // Written aside and renamed, so a crash never leaves half a file. It holds the signing secret:
  // owner-only, under a name nobody can plant a link at beforehand (created exclusively).
  const draft = `${stateFile}.${crypto.randomBytes(8).toString('hex')}.tmp`;
  fs.writeFileSync(draft, JSON.stringify(state), { mode: 0o600, flag: 'wx' });
  fs.renameSync(draft, stateFile);
}

interface FeedEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

interface FeedPage {
  data: FeedEvent[];
  nextCursor: string | null;
}

async function feed(query: Record<string, string>): Promise<FeedPage> {
  const res = await fetch(`${apiUrl}/events?${new URLSearchParams(query)}`, { headers: { Authorization: `Bearer ${apiKey}` } });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET /events answered ${res.status}: ${text.slice(0, 300)}`);
  // Entries are re-sent as JSON text; the feed's entries are exactly the bodies deliveries send.
  return JSON.parse(text) as FeedPage;
}

/** One POST as the service sends it: the body, the three Standard Webhooks headers, its User-Agent. */
async function forward(event: FeedEvent, webhook: Webhook): Promise<number> {
  const body = JSON.stringify(event);
  const timestamp = new Date();
  const res = await fetch(forwardTo, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Service-Webhooks/1.0',
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': webhook.sign(event.id, timestamp, body),
    },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  await res.arrayBuffer();
  return res.status;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => (stopping = true));

const state = loadState();
saveState(state);
const webhook = new Webhook(state.secret);
console.log(`Forwarding ticket events of ${apiUrl} to ${forwardTo}`);
console.log(`Signing secret (verify with it in your receiver): ${state.secret}`);

// A first run starts with what happens from now on: after the newest event, or, while the feed is
// empty, with the first events that appear.
if (!state.after) {
  const newest = await feed({ limit: '1' });
  if (newest.data[0]) saveState({ ...state, after: newest.data[0].id });
  Object.assign(state, loadState());
}
console.log(state.after ? `Following the feed after ${state.after}` : 'Following the feed from its first event');

while (!stopping) {
  let page;
  try {
    // `after` continues exactly after the last event forwarded, in the feed's order.
    page = await feed(state.after ? { after: state.after, limit: '100' } : { limit: '100' });
  } catch (err) {
    console.error(`${(err as Error).message}; retrying`);
    await sleep(pollMs * 5);
    continue;
  }
  // Without a place yet the page is newest first: forward it oldest first.
  const events = state.after ? page.data : [...page.data].reverse();
  let failed = false;
  for (const event of events) {
    if (stopping) break;
    let status: number | string;
    try {
      status = await forward(event, webhook);
    } catch (err) {
      status = (err as Error).message;
    }
    console.log(`${event.type} ${event.id} -> ${status}`);
    if (typeof status !== 'number' || status < 200 || status > 299) {
      // Not acknowledged: this event again later (as the service retries), without moving on.
      failed = true;
      break;
    }
    state.after = event.id;
    saveState(state);
  }
  if (failed || !events.length) await sleep(failed ? pollMs * 5 : pollMs);
}
console.log('Stopped');
