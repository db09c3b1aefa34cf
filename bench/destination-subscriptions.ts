// The public API calls bench/destinations.ts makes of a subscription: create it on a target, send
// the Test action and wait for it, pause and resume, read its condition and backlog, its
// statistics; and the events feed, the authoritative list of what a phase wrote.
import type { Api } from './npm-start.ts';
import type { Target } from './destination-targets.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface SubscriptionState {
  condition: string;
  consecutiveFailures: number;
  backlog: { pending: number; inFlight: number; waitingFor: string };
}

export interface Subscription {
  id: string;
  target: Target;
}

/** A subscription of `api`'s workspace to ticket.updated, delivered to `target`; `extra`: more members of the body (a retry schedule). */
export async function subscribe(api: Api, target: Target, extra: Record<string, unknown> = {}): Promise<Subscription> {
  const { id } = await api.ok<{ id: string }>('POST', '/webhooks', { ...target.body, events: ['ticket.updated'], description: `bench ${target.type}`, ...extra });
  return { id, target };
}

export const stateOf = (api: Api, s: Subscription) => api.ok<SubscriptionState>('GET', `/webhooks/${s.id}`);

/**
 * The Test action on each subscription, and the wait for its webhook.test to arrive: every broker
 * connection opened, every topic made, every place reachable before anything is measured.
 */
export async function warmUp(api: Api, subs: Subscription[], timeoutMs = 120_000): Promise<Set<string>> {
  const ids = await Promise.all(subs.map(async (s) => (await api.ok<{ eventId: string }>('POST', `/webhooks/${s.id}/test`)).eventId));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await Promise.all(subs.map((s) => s.target.poll().catch(() => undefined)));
    const missing = subs.filter((s, i) => !s.target.arrivals.has(ids[i]));
    if (!missing.length) return new Set(ids);
    if (Date.now() > deadline) {
      const states = await Promise.all(missing.map(async (s) => `${s.target.type} ${s.id}: ${JSON.stringify(await stateOf(api, s))}`));
      throw new Error(`the Test action's event did not arrive within ${timeoutMs / 1000} s at ${states.join('; ')}`);
    }
    await sleep(250);
  }
}

/** By hand, as a person in the settings UI (GraphQL: v1 has no REST route for it). */
export const pause = (api: Api, s: Subscription) => api.graphql('mutation ($id: String!) { pauseWebhookSubscription(id: $id) { id } }', { id: s.id });
export const resume = (api: Api, s: Subscription) => api.ok('POST', `/webhooks/${s.id}/resume`);

/** Attempts in the last 24 hours (GET /webhooks/{id}/stats): made, failed, and their durations' p50 / p95 ms. */
export async function attemptStats(api: Api, s: Subscription) {
  const st = await api.ok<{ attempts: number; failed: number; durationMs: { p50: number | null; p95: number | null } }>('GET', `/webhooks/${s.id}/stats`);
  return { attempts: st.attempts, failed: st.failed, p50: st.durationMs.p50, p95: st.durationMs.p95 };
}

/**
 * The events that reached any of `subs` (their webhook-ids, the Test action's `excluded`) with
 * their occurredAt. (Not the events feed: GET /events pages a filtered list wrongly, see the
 * report of this benchmark's commit.)
 */
export function eventsSeen(subs: Subscription[], excluded: Set<string>): { id: string; occurredAt: number }[] {
  const seen = new Map<string, number>();
  for (const s of subs) for (const [id, a] of s.target.arrivals) if (!excluded.has(id)) seen.set(id, a.occurredAt);
  return [...seen].map(([id, occurredAt]) => ({ id, occurredAt }));
}

/** Of `ids` (`expected` events in all), how many `target` has (each counted once), and the second arrivals of those (duplicates). */
export function tally(target: Target, ids: string[], expected = ids.length): { arrived: number; missing: number; duplicates: number } {
  let arrived = 0;
  let duplicates = 0;
  for (const id of ids) {
    const a = target.arrivals.get(id);
    if (!a) continue;
    arrived += 1;
    duplicates += a.count - 1;
  }
  return { arrived, missing: expected - arrived, duplicates };
}
