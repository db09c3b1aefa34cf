// The timed operations of the scale benchmark. Each case is one request (or one call of the
// code path) that run.ts times many times; adding a case is adding an entry here, e.g. a new
// endpoint's page: `{ id, name, run: (ctx) => ctx.get(`/webhooks/${ctx.subscription()}/stats`) }`.
import { relayRepository } from '../../src/webhooks/fanout/relay.repository.ts';
import { SUBSCRIPTIONS_PER_WORKSPACE, UNRELAYED, type ScaleFixture } from './generate.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** The relay's claim size (src/webhooks/fanout/outbox-relay.ts) and a lease long enough for a call. */
const CLAIM = 200;
const LEASE_MS = 30_000;

export interface CaseContext {
  fixture: ScaleFixture;
  /** GET on /public/v1 over loopback HTTP with the API key of workspace `n`; throws unless 200. */
  get(n: number, path: string): Promise<unknown>;
  /** A random number below `max`. */
  random(max: number): number;
}

export interface ScaleCase {
  id: string;
  name: string;
  /** One timed operation; what it returns, if anything, is run after it, untimed (to undo it). */
  run(ctx: CaseContext): Promise<void | (() => Promise<unknown>)>;
}

const pad = (n: number) => String(n).padStart(26, '0');
const subscriptionId = (n: number, k: number) => `wh_${pad(n * SUBSCRIPTIONS_PER_WORKSPACE + k)}`;

/** A random subscription: its workspace's number and its id. */
function pickSubscription(ctx: CaseContext) {
  const n = ctx.random(ctx.fixture.workspaces.length);
  const k = ctx.random(SUBSCRIPTIONS_PER_WORKSPACE);
  return { n, k, id: subscriptionId(n, k) };
}

/** A relayed event delivered to subscription k of workspace n (generate.ts: event j of W workspaces goes to (j / W) % SUBSCRIPTIONS_PER_WORKSPACE). */
function eventOf(ctx: CaseContext, n: number, k: number) {
  const workspaces = ctx.fixture.workspaces.length;
  const perCycle = workspaces * SUBSCRIPTIONS_PER_WORKSPACE;
  const cycles = Math.floor((ctx.fixture.events - UNRELAYED - n - workspaces * k) / perCycle);
  return `evt_${pad(n + workspaces * k + perCycle * ctx.random(Math.max(1, cycles)))}`;
}

const daysAgo = (ctx: CaseContext, days: number) => new Date(new Date(ctx.fixture.generatedAt).getTime() - days * DAY_MS).toISOString();

function deliveryLog(id: string, name: string, query: (ctx: CaseContext, n: number, k: number) => string): ScaleCase {
  return {
    id,
    name,
    run: async (ctx) => {
      const s = pickSubscription(ctx);
      const q = query(ctx, s.n, s.k);
      await ctx.get(s.n, `/webhooks/${s.id}/deliveries${q ? `?${q}` : ''}`);
    },
  };
}

function tickets(id: string, name: string, query: (ctx: CaseContext, n: number) => string): ScaleCase {
  return {
    id,
    name,
    run: async (ctx) => {
      const n = ctx.random(ctx.fixture.workspaces.length);
      const q = query(ctx, n);
      await ctx.get(n, `/tickets${q ? `?${q}` : ''}`);
    },
  };
}

export const CASES: ScaleCase[] = [
  deliveryLog('log', 'delivery log, no filter', () => ''),
  deliveryLog('log-status', 'delivery log, status=failed', () => 'status=failed'),
  deliveryLog('log-status-held', 'delivery log, status=held (rare)', () => 'status=held'),
  deliveryLog('log-type', 'delivery log, eventType=ticket.updated', () => 'eventType=ticket.updated'),
  deliveryLog('log-event', 'delivery log, eventId', (ctx, n, k) => `eventId=${eventOf(ctx, n, k)}`),
  deliveryLog('log-window', 'delivery log, since/until (one day, 10 days ago)', (ctx) => `since=${daysAgo(ctx, 10)}&until=${daysAgo(ctx, 9)}`),
  ...(['24h', '30d'] as const).map((period): ScaleCase => ({
    id: `stats-${period}`,
    name: `delivery statistics, period=${period}`,
    run: async (ctx) => {
      const s = pickSubscription(ctx);
      await ctx.get(s.n, `/webhooks/${s.id}/stats?period=${period}`);
    },
  })),
  tickets('tickets', 'GET /tickets, no filter', () => ''),
  tickets('tickets-board', 'GET /tickets, boardId', (ctx, n) => `boardId=${ctx.fixture.workspaces[n].boardIds[1]}`),
  tickets('tickets-state', 'GET /tickets, state (by name)', () => 'state=Closed'),
  tickets('tickets-since', 'GET /tickets, updatedSince (last day)', (ctx) => `updatedSince=${daysAgo(ctx, 1)}`),
  {
    id: 'claim',
    name: `outbox claim (up to ${CLAIM}: the ${UNRELAYED} unrelayed events)`,
    run: async () => {
      const claimed = await relayRepository.claimEvents(CLAIM, LEASE_MS);
      if (claimed.length !== UNRELAYED) throw new Error(`the claim took ${claimed.length} events`);
      return () => relayRepository.releaseLease(claimed.map((e) => e.id));
    },
  },
];
