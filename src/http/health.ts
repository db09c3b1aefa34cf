// Liveness and readiness, for the API's app and for the worker role's small listener
// (HEALTH_PORT). /healthz: the process answers. /readyz: every check passes, else 503; the
// answer names each check with ok, starting or failing and nothing else (no error text, no
// addresses).
// /readyz is public: every caller within a second gets the same answer, so however many ask, the
// database and Temporal are asked at most once a second.
import { Hono } from 'hono';

/**
 * A check passes when it resolves within CHECK_TIMEOUT_MS; one that rejects with `Starting` says
 * its part has not finished its first start yet (`starting`), any other failure is `failing`.
 */
export type ReadinessChecks = Record<string, () => Promise<unknown>>;
type CheckState = 'ok' | 'starting' | 'failing';

export class Starting extends Error {}

const CHECK_TIMEOUT_MS = 2_000;

function withTimeout(check: () => Promise<unknown>): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    Promise.resolve().then(check),
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS))),
  ]).finally(() => clearTimeout(timer));
}

const state = (result: PromiseSettledResult<unknown>): CheckState =>
  result.status === 'fulfilled' ? 'ok' : result.reason instanceof Starting ? 'starting' : 'failing';

export async function readiness(checks: ReadinessChecks): Promise<{ status: 'ready' | 'not_ready'; checks: Record<string, CheckState> }> {
  const names = Object.keys(checks);
  const results = await Promise.allSettled(names.map((name) => withTimeout(checks[name])));
  const outcome = Object.fromEntries(names.map((name, i) => [name, state(results[i])]));
  return { status: Object.values(outcome).every((v) => v === 'ok') ? 'ready' : 'not_ready', checks: outcome };
}

/** How old an answer of /readyz may be: the checks run at most once in this long. */
const READINESS_MAX_AGE_MS = 1_000;

/**
 * readiness() shared: a call within READINESS_MAX_AGE_MS of the start of the last run (or while
 * it runs) gets that run's answer. `now` is the clock (tests).
 */
function sharedReadiness(checks: ReadinessChecks, now: () => number = performance.now.bind(performance)): () => ReturnType<typeof readiness> {
  let last: { startedAt: number; answer: ReturnType<typeof readiness> } | undefined;
  return () => {
    const t = now();
    if (!last || t - last.startedAt >= READINESS_MAX_AGE_MS) last = { startedAt: t, answer: readiness(checks) };
    return last.answer;
  };
}

export function healthRoutes(checks: ReadinessChecks, options: { now?: () => number } = {}): Hono {
  const app = new Hono();
  const ready = sharedReadiness(checks, options.now);
  const noStore = { 'Cache-Control': 'no-store' };
  app.get('/healthz', (c) => c.json({ status: 'ok' }, 200, noStore));
  app.get('/readyz', async (c) => {
    const answer = await ready();
    return c.json(answer, answer.status === 'ready' ? 200 : 503, noStore);
  });
  return app;
}
