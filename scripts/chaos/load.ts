// The chaos test's clients: `events` ticket creations (POST /public/v1/tickets), each with its own
// Idempotency-Key, spread over both api instances at `rate` per second. A request that meets a
// refused connection, a timeout or a 5xx is sent again with the same key (to the other instance);
// a 409 (the key's first request died with its process) is retried until the key is released.
// Some requests are repeated on purpose: after their answer (a replay must name the same
// ticket), or twice at once on both instances.
import { setTimeout as sleep } from 'node:timers/promises';
import type { KillWindows } from './kill-windows.ts';

export interface LoadOptions {
  origins: string[];
  apiKey: string;
  boardId: string;
  productFieldId: string;
  events: number;
  rate: number;
  concurrency: number;
  runId: string;
  windows: KillWindows;
  log: (line: string) => void;
}

export interface LoadReport {
  /** Idempotency-Key → the ticket id its answers named. */
  tickets: Map<string, number>;
  requests: number;
  /** Sends after a refused connection, timeout, 5xx, 409 or 429. */
  retries: number;
  /** Repeats on purpose that were answered as replays. */
  replays: number;
  /** 5xx and connection errors inside kill windows (expected). */
  errorsDuringKills: number;
  failures: string[];
}

const REQUEST_TIMEOUT_MS = 30_000;
/** A key whose request died holds for 5 minutes (ABANDONED_AFTER_MS): keep retrying somewhat longer. */
const KEY_GIVE_UP_MS = 8 * 60_000;

export const subjectOf = (key: string) => `Chaos ticket ${key}`;

export async function runLoad(o: LoadOptions): Promise<LoadReport> {
  const report: LoadReport = { tickets: new Map(), requests: 0, retries: 0, replays: 0, errorsDuringKills: 0, failures: [] };
  const fail = (message: string) => {
    if (report.failures.length < 50) o.log(`FAIL ${message}`);
    report.failures.push(message);
  };

  /** Sends one creation until it has an answer; returns the ticket id, or undefined after a failure. */
  async function create(key: string, n: number, originIndex: number): Promise<{ id: number; replayed: boolean } | undefined> {
    const body = JSON.stringify({
      boardId: o.boardId,
      subject: subjectOf(key),
      description: 'Created by the chaos test',
      requesterEmail: `chaos${n}@example.test`,
      fields: [{ fieldId: o.productFieldId, value: 'Web' }],
    });
    const givenUpAt = Date.now() + KEY_GIVE_UP_MS;
    let origin = originIndex;
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) report.retries += 1;
      if (Date.now() > givenUpAt) return void fail(`${key}: no answer within ${KEY_GIVE_UP_MS / 60_000} min of retries`);
      const url = `${o.origins[origin % o.origins.length]}/public/v1/tickets`;
      const start = Date.now();
      report.requests += 1;
      let status: number;
      let text: string;
      let replayed: boolean;
      let retryAfter: number;
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${o.apiKey}`, 'content-type': 'application/json', 'idempotency-key': key },
          body,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        status = res.status;
        text = await res.text();
        replayed = res.headers.get('idempotent-replayed') === 'true';
        retryAfter = Number(res.headers.get('retry-after') ?? 0) || 0;
      } catch (err) {
        // Refused, reset or timed out: the instance (or what it needs) is down. Try the other one.
        const cause = (err as Error & { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
        if (o.windows.overlapping(start, Date.now()).length) report.errorsDuringKills += 1;
        else o.log(`note: ${key} on ${url}: ${cause} outside any kill window; retrying`);
        origin += 1;
        await sleep(500);
        continue;
      }
      if (status === 201) return { id: (JSON.parse(text) as { id: number }).id, replayed };
      if (status >= 500) {
        const during = o.windows.overlapping(start, Date.now());
        if (during.length) report.errorsDuringKills += 1;
        else fail(`${key}: ${status} outside any kill window from ${url}: ${text.slice(0, 200)}`);
        origin += 1;
        await sleep(500);
        continue;
      }
      if (status === 409 || status === 429) {
        await sleep(Math.max(2_000, retryAfter * 1000));
        continue;
      }
      return void fail(`${key}: ${status} from ${url}: ${text.slice(0, 200)}`);
    }
  }

  function record(key: string, id: number) {
    const known = report.tickets.get(key);
    if (known !== undefined && known !== id) fail(`${key}: answered ticket ${known} and ticket ${id}`);
    report.tickets.set(key, id);
  }

  async function one(n: number) {
    const key = `chaos-${o.runId}-${n}`;
    if (n % 20 === 10) {
      // Twice at once, one on each instance: one creates, the other waits (409) and then replays.
      const both = await Promise.all([create(key, n, n), create(key, n, n + 1)]);
      for (const r of both) if (r) record(key, r.id);
      if (both.every((r) => r && r.replayed === false)) fail(`${key}: two requests at once both claim to have created it`);
      return;
    }
    const first = await create(key, n, n);
    if (!first) return;
    record(key, first.id);
    if (n % 20 === 0) {
      const again = await create(key, n, n + 1);
      if (!again) return;
      record(key, again.id);
      if (again.replayed) report.replays += 1;
      else fail(`${key}: a repeat with the same key was not answered as a replay`);
    }
  }

  const started = Date.now();
  let next = 0;
  let done = 0;
  const progress = setInterval(() => o.log(`load: ${done}/${o.events} tickets, ${report.retries} retries, ${report.errorsDuringKills} errors during kills`), 15_000);
  try {
    await Promise.all(
      Array.from({ length: o.concurrency }, async () => {
        while (next < o.events) {
          const n = next++;
          const due = started + (n * 1000) / o.rate;
          if (due > Date.now()) await sleep(due - Date.now());
          await one(n);
          done += 1;
        }
      }),
    );
  } finally {
    clearInterval(progress);
  }
  return report;
}
