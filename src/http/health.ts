// Liveness and readiness, for the API's app and for the worker role's small listener
// (HEALTH_PORT). /healthz: the process answers. /readyz: every check passes, else 503; the
// answer names each check with ok, starting or failing and nothing else (no error text, no
// addresses).
import { Hono } from 'hono';

/**
 * A check passes when it resolves within CHECK_TIMEOUT_MS; one that rejects with `Starting` says
 * its part has not finished its first start yet (`starting`), any other failure is `failing`.
 */
export type ReadinessChecks = Record<string, () => Promise<unknown>>;
export type CheckState = 'ok' | 'starting' | 'failing';

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
  const results = await Promise.allSettled(names.map((name) => withTimeout(checks[name]!)));
  const outcome = Object.fromEntries(names.map((name, i) => [name, state(results[i]!)]));
  return { status: Object.values(outcome).every((v) => v === 'ok') ? 'ready' : 'not_ready', checks: outcome };
}

export function healthRoutes(checks: ReadinessChecks): Hono {
  const app = new Hono();
  const noStore = { 'Cache-Control': 'no-store' };
  app.get('/healthz', (c) => c.json({ status: 'ok' }, 200, noStore));
  app.get('/readyz', async (c) => {
    const answer = await readiness(checks);
    return c.json(answer, answer.status === 'ready' ? 200 : 503, noStore);
  });
  return app;
}
