// One seed of the delivery engine's simulation, carried out on the real parts (stack.ts): the
// seed's workspaces and subscriptions, its schedule of steps (model.ts) through the API, two relay
// processes of two lanes each driven step by step (createOutboxRelay's takeBatch and finish), the
// receiver's answers, kills and clock jumps; meanwhile the worker runs the real delivery runs, and
// the interleaving points (src/webhooks/delivery/interleave.ts) may park an actor until the driver has
// taken more steps, so that another actor's step comes first. Then the system is let quiesce and
// the invariants are checked (invariants.ts).
//
// What replays exactly: the world, the schedule, each receiver answer (drawn per subscription,
// event and request number), each park (per point, subject and pass) and each kill (per batch
// and attempt). What does not: how long real work takes, so which of two unparked actors gets
// somewhere first. A park is what turns a race into a seed that shows it every time.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import protos from '@temporalio/proto';
import { prisma } from '../../../src/db/db.ts';
import { writeEvent } from '../../../src/events/event.outbox.ts';
import { temporal } from '../../../src/temporal/client.ts';
import { createOutboxRelay } from '../../../src/webhooks/fanout/outbox-relay.ts';
import { OVERDUE_AFTER_MS } from '../../../src/webhooks/fanout/constants.ts';
import { wakeRun } from '../../../src/webhooks/delivery/wake.ts';
import { deliveryRunWorkflowId } from '../../../src/webhooks/delivery/ids.ts';
import { stateQuery } from '../../../src/webhooks/delivery/signals.ts';
import { effectiveInFlight } from '../../../src/webhooks/delivery/run-state.ts';
import type { InterleavePoint } from '../../../src/webhooks/delivery/interleave.ts';
import { api, createTestWorkspace, randomSuffix } from '../../support/fixtures.ts';
import { createSubscription } from '../fixtures.ts';
import type { Answer, ReceivedRequest } from '../receiver.ts';
import { checkInvariants, type Violation } from './invariants.ts';
import { describeStep, planSeed, RELAY_LANES, RELAY_PROCESSES, type Mood, type SeedPlan, type Step, type SubscriptionPlan } from './model.ts';
import { seededRandom, type Choices } from './random.ts';
import { MAX_IN_FLIGHT_LIMIT, SENDER_TIMEOUT_MS, type BatchRecord, type SimulationStack } from './stack.ts';

const proto = protos.temporal;

/** A parked actor goes on after this long (real ms) at most, whatever the driver does: it may hold what the driver's next step waits for. */
const PARK_BUDGET_MS = 250;
/** A killed batch's zombie may wait this long (real ms) for its retry to take the batch over. */
const ZOMBIE_BUDGET_MS = 3_000;
/** The simulation's relays lease events this long (real ms): a dead process's events are taken again soon. */
const RELAY_LEASE_MS = 400;
/** A skip of the clock that has not ended after this long (real ms) while quiescing did not skip. */
const SKIP_BUDGET_MS = 5_000;
/** The same for a jump of the schedule, while answers, parks and zombies may still hold the clock (seconds at most). */
const CLOCK_STEP_BUDGET_MS = 15_000;
/** How long (real ms) the system may take to quiesce before the seed fails for it. */
const QUIESCE_BUDGET_MS = 90_000;

const POINTS: InterleavePoint[] = ['claim:read', 'relay:claimed', 'relay:written', 'batch:taken', 'batch:sent', 'batch:recorded'];

type AnswerKind = 'ok' | 'slow' | 'fail' | 'client-error' | 'retry-after-seconds' | 'retry-after-date' | 'gone' | 'hang';
const ANSWERS: Record<Mood, Partial<Record<AnswerKind, number>>> = {
  healthy: { ok: 90, slow: 5, fail: 3, hang: 1, 'retry-after-seconds': 1 },
  flaky: { ok: 55, fail: 30, slow: 5, hang: 4, 'client-error': 6 },
  overloaded: { ok: 50, 'retry-after-seconds': 25, 'retry-after-date': 15, slow: 10 },
  slow: { ok: 30, slow: 60, hang: 10 },
  gone: { ok: 70, fail: 15, gone: 8, slow: 7 },
};

export interface SubscriptionRun {
  plan: SubscriptionPlan;
  id: string;
  workspaceId: number;
  path: string;
  /** Wall-clock intervals (Date.now()) in which it may have been disabled or deleted: by the API, or after a 410. */
  stopped: { from: number; to: number }[];
  /** Every retry schedule it had (delays in seconds; null: the default). */
  schedules: (number[] | null)[];
  /** Its resume's start of the run failed (the API's Temporal client): the sweep of overdue deliveries starts it. */
  resumeDeferred: boolean;
}

export interface SeedStats {
  steps: number;
  events: number;
  requests: number;
  /** Requests beyond the first for a delivery (same webhook-id). */
  duplicates: number;
  parks: number;
  kills: number;
  zombies: number;
  /** The most a receiver or workspace held above its bound or cap while a zombie ran (the documented zombie window). */
  zombieExcess: number;
  /** Subscriptions whose runs the overdue sweep had to start while quiescing. */
  sweeps: number;
  /** Times the time-skipping server had to be replaced (a stranded run, a clock that stopped skipping: restartEnvironment in harness.ts). */
  environmentFaults: number;
}

export interface SeedResult {
  seed: number;
  database: SimulationStack['database'];
  violations: Violation[];
  log: string[];
  stats: SeedStats;
  ms: number;
}

/** What invariants.ts reads of a finished seed. */
export interface SeedTrace {
  seed: number;
  plan: SeedPlan;
  subs: SubscriptionRun[];
  workspaceIds: number[];
  requests: ReceivedRequest[];
  batches: BatchRecord[];
  stats: SeedStats;
  apiKeys: Map<number, string>;
  /** Subscriptions whose runs the sweep started while quiescing. */
  swept: Set<string>;
  quiesced: boolean;
  /** The held-on-receiving check after each step found these. */
  stepViolations: Violation[];
}

interface Ticket {
  id: number;
  workspace: number;
  board: number;
  state: number;
  updates: number;
}

interface RelayProcess {
  alive: boolean;
  generation: number;
  relay: ReturnType<typeof createOutboxRelay>;
  lanes: { chain: Promise<void>; written: (() => Promise<void>)[] }[];
  fault: { when: 'before' | 'after'; remaining: number } | null;
}

/** The API's Temporal client (resume starts runs with it) fails while this says so. */
const apiFault: { current: { when: 'before' | 'after'; remaining: number } | null } = { current: null };
const faultyApiClients = new WeakSet<Client>();

/** Passes `call` through, or fails it (before it reaches Temporal, or after) while `fault` has calls left. */
async function withFault<T>(fault: { when: 'before' | 'after'; remaining: number } | null, call: () => Promise<T>): Promise<T> {
  if (!fault || fault.remaining <= 0) return call();
  fault.remaining -= 1;
  if (fault.when === 'before') throw new Error('simulated: the Temporal connection is down');
  await call();
  throw new Error('simulated: the Temporal connection dropped before the answer');
}

export async function runSeed(stack: SimulationStack, seed: number, options: { steps: number }): Promise<SeedResult> {
  const started = performance.now();
  const random = seededRandom(seed);
  const plan = planSeed(random, { steps: options.steps, database: stack.database });
  const log: string[] = [];
  const note = (line: string) => {
    log.push(`${String(Math.round(performance.now() - started)).padStart(6)} ms  ${line}`);
    // SIM_TRACE: the log as it happens too (a seed that hangs shows where).
    if (process.env.SIM_TRACE) process.stderr.write(`${log.at(-1)}\n`);
  };
  const stats: SeedStats = { steps: 0, events: 0, requests: 0, duplicates: 0, parks: 0, kills: 0, zombies: 0, zombieExcess: 0, sweeps: 0, environmentFaults: 0 };
  // stack.env, not a copy: a new server replaces it when the clock stops skipping (restartEnvironment).
  const { receiver, taskQueue } = stack;
  const envNow = async () => new Date(await stack.env.currentTimeMs());

  // The API's client fails as the schedule says (installed once per client).
  const apiClient = temporal().client;
  if (!faultyApiClients.has(apiClient)) {
    faultyApiClients.add(apiClient);
    const real = apiClient.workflow.signalWithStart.bind(apiClient.workflow);
    apiClient.workflow.signalWithStart = ((...args: Parameters<typeof real>) => withFault(apiFault.current, () => real(...args))) as typeof real;
  }
  apiFault.current = null;

  // The world: workspaces (an API key each) and subscriptions on the receiver.
  const workspaces: { ws: Awaited<ReturnType<typeof createTestWorkspace>>; key: string }[] = [];
  for (let w = 0; w < plan.world.workspaces; w++) {
    const ws = await createTestWorkspace(`Simulation ${seed}`);
    workspaces.push({ ws, key: (await ws.key()).value });
  }
  const subs: SubscriptionRun[] = [];
  for (const p of plan.world.subscriptions) {
    const { ws } = workspaces[p.workspace];
    const path = `/sim-${seed}-${p.label}-${randomSuffix()}`;
    const row = await createSubscription(ws, {
      url: `${receiver.origin}${path}`,
      events: p.events,
      boardIds: p.board === null ? [] : [ws.boards[p.board].id],
      maxInFlight: p.maxInFlight,
      ordering: p.ordering,
      ...(p.retryDelays ? { retrySchedule: { delaysSeconds: p.retryDelays } } : {}),
    });
    subs.push({ plan: p, id: row.id, workspaceId: ws.workspace.id, path, stopped: [], schedules: [p.retryDelays], resumeDeferred: false });
  }
  const subById = new Map(subs.map((s) => [s.id, s]));
  const labelOf = (subscriptionId: string) => subById.get(subscriptionId)?.plan.label ?? 'other';
  note(`world: ${plan.world.workspaces} workspace(s); ${plan.world.subscriptions.map((p) => `${p.label} ws${p.workspace} ${p.ordering} max=${p.maxInFlight} ${p.mood} [${p.events.join(',')}]${p.board === null ? '' : ` board=${p.board}`}${p.retryDelays ? ` delays=${JSON.stringify(p.retryDelays)}` : ''}`).join('; ')}`);

  // The driver's steps, and the actors parked until it has taken more (or their budget ran out).
  let stepsDone = 0;
  let quiescing = false;
  const waiters = new Set<{ target: number; done: () => void }>();
  const tasks = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>) => {
    const settled = p.catch(() => undefined).finally(() => tasks.delete(settled));
    tasks.add(settled);
  };
  function waitSteps(steps: number, budgetMs: number, watchLocks = false): Promise<void> {
    return new Promise((resolve) => {
      let stop = false;
      const w = {
        target: stepsDone + steps,
        done: () => {
          stop = true;
          clearTimeout(timer);
          waiters.delete(w);
          resolve();
        },
      };
      const timer = setTimeout(w.done, budgetMs);
      waiters.add(w);
      if (quiescing) w.done();
      // On PostgreSQL a parked transaction may hold a lock the next step waits for: it goes on once someone waits.
      if (watchLocks)
        void (async () => {
          while (!stop) {
            const [row] = await prisma.$queryRaw<{ n: number }[]>`
              SELECT count(*)::int AS "n" FROM pg_stat_activity WHERE "datname" = current_database() AND "wait_event_type" = 'Lock'`;
            if (row.n > 0) return w.done();
            await sleep(15);
          }
        })().catch(() => w.done());
    });
  }
  const stepDone = () => {
    stepsDone += 1;
    for (const w of [...waiters]) if (stepsDone >= w.target) w.done();
  };

  // Interleaving points: each enabled for the seed or not (as FoundationDB's BUGGIFY sites), and when
  // enabled each pass parked or not, by the pass's own draw.
  const enabled = new Set(POINTS.filter((p) => random.at('site', p).chance(0.5)));
  const passes = new Map<string, number>();
  const zombieWaits = new Map<string, (() => void)[]>();
  const aboutLabel = (point: InterleavePoint, about: string) => (point.startsWith('relay:') ? `${about.split(',').length} events` : labelOf(about));
  async function atPoint(point: InterleavePoint, about: string, batch: BatchRecord | undefined): Promise<void> {
    if (batch && !subById.has(batch.subscriptionId)) return;
    if (batch?.kill === point) {
      // The worker dies here: the wrapper (stack.ts) fails the attempt; this code runs on as a zombie,
      // now or (by its draw) once the retry has taken the batch over.
      batch.reached?.();
      note(`kill ${labelOf(batch.subscriptionId)} batch ${batch.token.split(':').at(-1)} attempt ${batch.attempt} at ${point}`);
      if (random.at('zombie-waits', batch.token.split(':').at(-1)!, labelOf(batch.subscriptionId), batch.attempt).chance(0.7)) {
        await new Promise<void>((resolve) => {
          const list = zombieWaits.get(batch.token) ?? [];
          list.push(resolve);
          zombieWaits.set(batch.token, list);
          setTimeout(resolve, ZOMBIE_BUDGET_MS);
        });
      }
      return;
    }
    if (point === 'batch:taken' && batch && batch.attempt > 1) {
      for (const release of zombieWaits.get(batch.token) ?? []) release();
      zombieWaits.delete(batch.token);
    }
    if (quiescing || !enabled.has(point)) return;
    // On PGlite a claim's transaction holds the one connection: parked there, nothing else could go first.
    if (point === 'claim:read' && stack.database === 'pglite') return;
    const label = aboutLabel(point, about);
    const key = `${point} ${label}`;
    const n = passes.get(key) ?? 0;
    passes.set(key, n + 1);
    const c = random.at('park', point, label, n);
    // A claim parked after its read is where a concurrent change of the subscription meets it: more often.
    if (!c.chance(point === 'claim:read' ? 0.6 : 0.3)) return;
    const steps = c.int(1, 3);
    stats.parks += 1;
    note(`park ${key} #${n} for ${steps} step(s)`);
    await waitSteps(steps, PARK_BUDGET_MS, stack.database === 'postgres' && point === 'claim:read');
  }

  // Kills: a claim's result lost after it committed; a batch's at one of its points.
  const claimAllowed = new Map<string, number>();
  const batches: BatchRecord[] = [];
  const batchNumber = new Map<string, number>();
  const claimsOf = new Map<string, number>();
  stack.setSeed({
    claimed(input, result) {
      const sub = subById.get(input.subscriptionId);
      if (!sub) return false;
      // The most its batches may have open: the bound in force before any AIMD lowering (the claim's settings are within the limit).
      claimAllowed.set(input.token, effectiveInFlight(result.settings, null));
      const n = claimsOf.get(sub.id) ?? 0;
      claimsOf.set(sub.id, n + 1);
      if (quiescing || !random.at('kill-claim', sub.plan.label, n).chance(0.02)) return false;
      stats.kills += 1;
      note(`kill ${sub.plan.label} claim #${n} after it committed (${result.deliveries.length} claimed)`);
      return true;
    },
    batchStarted(record) {
      const sub = subById.get(record.subscriptionId);
      if (!sub) return;
      record.allowed = claimAllowed.get(record.token) ?? (sub.plan.ordering === 'strict' ? 1 : MAX_IN_FLIGHT_LIMIT);
      // An attempt still running when Temporal starts the next one was given up: a zombie too.
      for (const b of batches) if (b.token === record.token && b.attempt < record.attempt && b.end === undefined) b.zombie = true;
      const n = batchNumber.get(record.token) ?? batchNumber.size;
      batchNumber.set(record.token, n);
      batches.push(record);
      const c = random.at('kill-batch', sub.plan.label, n, record.attempt);
      if (!quiescing && record.attempt <= 2 && c.chance(0.07)) {
        record.kill = c.pick(['batch:taken', 'batch:sent', 'batch:recorded', 'end'] as const);
        stats.kills += 1;
      }
    },
    interleave: atPoint,
  });

  // The receiver: each subscription's path answers as its mood and the request's own draw say.
  const requestsBefore = receiver.requests.length;
  const answered = new Map<string, number>();
  const eventLabel = (body: string) => {
    try {
      const e = JSON.parse(body) as { type?: string; data?: { subject?: string; version?: number; subscriptionId?: string } };
      if (e.type?.startsWith('webhook.')) return `${e.type}:${labelOf(e.data?.subscriptionId ?? '')}`;
      return `${e.type}:${e.data?.subject ?? ''}:v${e.data?.version ?? ''}`;
    } catch {
      return 'unparsable';
    }
  };
  async function answer(sub: SubscriptionRun, req: ReceivedRequest): Promise<Answer> {
    const label = eventLabel(req.body);
    const n = answered.get(`${sub.id} ${label}`) ?? 0;
    answered.set(`${sub.id} ${label}`, n + 1);
    const c: Choices = random.at('answer', sub.plan.label, label, n);
    const kind = c.weighted(ANSWERS[sub.plan.mood] as Record<AnswerKind, number>);
    const ok = () => ({ status: c.pick([200, 201, 204]) });
    switch (kind) {
      case 'ok':
        return ok();
      case 'slow':
        if (!quiescing) await waitSteps(c.int(1, 3), SENDER_TIMEOUT_MS / 3);
        return ok();
      case 'hang':
        // Answered after the sender gave up (its time-out), as a receiver that is too slow would.
        if (!quiescing) await sleep(SENDER_TIMEOUT_MS + 50);
        return ok();
      case 'fail':
        return { status: c.pick([500, 502, 503]) };
      case 'client-error':
        return { status: c.pick([400, 404, 422]) };
      case 'retry-after-seconds':
        return { status: c.pick([429, 503]), headers: { 'retry-after': String(c.pick([1, 30, 120, 600, 3600])) } };
      case 'retry-after-date':
        return { status: c.pick([429, 503]), headers: { 'retry-after': new Date((await stack.env.currentTimeMs()) + c.pick([5, 60, 900]) * 1000).toUTCString() } };
      case 'gone':
        sub.stopped.push({ from: Date.now(), to: Infinity });
        return { status: 410 };
    }
  }
  for (const sub of subs) receiver.respond(sub.path, (req) => answer(sub, req));

  // Two relay processes of two lanes each.
  const relayBatch = random.stream('world').int(1, 4);
  const processes: RelayProcess[] = [];
  function startProcess(i: number): RelayProcess {
    const proc: RelayProcess = { alive: true, generation: (processes[i]?.generation ?? 0) + 1, relay: undefined as never, lanes: [], fault: null };
    const client = { workflow: { signalWithStart: (name: string, opts: unknown) => withFault(proc.fault, () => stack.env.client.workflow.signalWithStart(name, opts as never)) } } as unknown as Client;
    proc.relay = createOutboxRelay({ client, taskQueue, batchSize: relayBatch, leaseMs: RELAY_LEASE_MS, concurrency: 4, clock: envNow });
    proc.lanes = Array.from({ length: RELAY_LANES }, () => ({ chain: Promise.resolve(), written: [] }));
    processes[i] = proc;
    return proc;
  }
  for (let i = 0; i < RELAY_PROCESSES; i++) startProcess(i);
  const onLane = (proc: RelayProcess, lane: number, what: string, op: () => Promise<void>) => {
    const l = proc.lanes[lane];
    const generation = proc.generation;
    l.chain = l.chain.then(async () => {
      if (!proc.alive || proc.generation !== generation) return;
      await op().catch((err: Error) => note(`${what}: ${err.message}`));
    });
    track(l.chain);
  };

  // The API, as an integrator calls it.
  const tickets: Ticket[] = [];
  const call = async (workspace: number, method: string, path: string, body?: unknown) => api(method, path, { key: workspaces[workspace].key, body });
  const gql = (workspace: number, query: string, id: string) => call(workspace, 'POST', '/graphql', { query, variables: { id } });
  const ticketBody = (w: number, board: number, subject: string) => {
    const b = workspaces[w].ws.boards[board];
    const required = b.fields.find((f) => f.required)!;
    return { boardId: b.id, subject, description: 'simulated', requesterEmail: 'sim@example.com', fields: [{ fieldId: required.id, value: required.type === 'select' ? 'Web' : 'INV-1' }] };
  };

  let clock = Promise.resolve();
  async function take(step: Step): Promise<void> {
    switch (step.kind) {
      case 'ticket': {
        const res = await call(step.workspace, 'POST', '/tickets', ticketBody(step.workspace, step.board, `sim ${seed} t${step.ticket}`));
        if (res.status === 201) tickets[step.ticket] = { id: res.body.id, workspace: step.workspace, board: step.board, state: 0, updates: 0 };
        return note(`  → ${res.status}`);
      }
      case 'update': {
        const t = tickets[step.ticket];
        if (!t) return note('  (no such ticket)');
        const states = workspaces[t.workspace].ws.boards[t.board].states;
        const change = step.change === 'state' ? { state: states[(t.state + 1) % states.length].id } : { subject: `sim ${seed} t${step.ticket} u${++t.updates}` };
        const res = await call(t.workspace, 'PATCH', `/tickets/${t.id}`, change);
        if (res.status === 200 && step.change === 'state') t.state = (t.state + 1) % states.length;
        return note(`  → ${res.status}`);
      }
      case 'test-event': {
        const sub = subs[step.sub];
        return note(`  → ${(await call(sub.plan.workspace, 'POST', `/webhooks/${sub.id}/test`)).status}`);
      }
      case 'late-commit': {
        const { ws } = workspaces[step.workspace];
        const board = ws.boards[step.board];
        const committed = prisma.$transaction(
          async (tx) => {
            await writeEvent(tx, { type: 'ticket.created', workspace: ws.workspace, actor: { id: ws.admin.id, name: ws.admin.fullName }, boardId: board.id, data: { id: 0, subject: `sim ${seed} late ${stepsDone}`, version: 1 } });
            await waitSteps(step.after, 5_000);
          },
          { timeout: 60_000 },
        );
        track(committed.then(() => note(`late event of step ${stepsDone} committed`)));
        return;
      }
      case 'relay-take': {
        const proc = processes[step.process];
        if (!proc.alive) return note('  (process is dead)');
        return onLane(proc, step.lane, `relay ${step.process}/${step.lane} take`, async () => {
          const { taken, finish } = await proc.relay.takeBatch();
          if (taken) proc.lanes[step.lane].written.push(finish);
        });
      }
      case 'relay-finish': {
        const proc = processes[step.process];
        if (!proc.alive) return note('  (process is dead)');
        return onLane(proc, step.lane, `relay ${step.process}/${step.lane} finish`, async () => {
          const finish = proc.lanes[step.lane].written.shift();
          await finish?.();
        });
      }
      case 'relay-kill': {
        const proc = processes[step.process];
        proc.alive = false;
        proc.generation += 1;
        return;
      }
      case 'relay-restart':
        if (processes[step.process].alive) return note('  (alive)');
        startProcess(step.process);
        return;
      case 'signal-fault':
        if (step.process === RELAY_PROCESSES) apiFault.current = { when: step.when, remaining: step.calls };
        else processes[step.process].fault = { when: step.when, remaining: step.calls };
        return;
      case 'pause':
      case 'disable': {
        const sub = subs[step.sub];
        const mutation = step.kind === 'pause' ? 'pauseWebhookSubscription' : 'disableWebhookSubscription';
        const from = Date.now();
        const res = await gql(sub.plan.workspace, `mutation($id: String!) { ${mutation}(id: $id) { id condition } }`, sub.id);
        if (step.kind === 'disable' && !res.body?.errors) sub.stopped.push({ from, to: Infinity });
        return note(`  → ${res.body?.errors ? res.body.errors[0].extensions?.code : 'done'}`);
      }
      case 'delete': {
        const sub = subs[step.sub];
        const from = Date.now();
        const res = await call(sub.plan.workspace, 'DELETE', `/webhooks/${sub.id}`);
        if (res.status === 204) sub.stopped.push({ from, to: Infinity });
        return note(`  → ${res.status}`);
      }
      case 'resume':
      case 'enable': {
        const sub = subs[step.sub];
        const deferred = apiFault.current?.remaining;
        const res = await call(sub.plan.workspace, 'POST', `/webhooks/${sub.id}/${step.kind}`);
        if (res.status === 200 && step.kind === 'enable') for (const s of sub.stopped) if (s.to === Infinity) s.to = Date.now();
        if (res.status === 200 && step.kind === 'resume' && deferred && deferred > (apiFault.current?.remaining ?? 0)) sub.resumeDeferred = true;
        return note(`  → ${res.status}`);
      }
      case 'max-in-flight': {
        const sub = subs[step.sub];
        return note(`  → ${(await call(sub.plan.workspace, 'PATCH', `/webhooks/${sub.id}`, { maxInFlight: step.value })).status}`);
      }
      case 'retry-schedule': {
        const sub = subs[step.sub];
        const res = await call(sub.plan.workspace, 'PATCH', `/webhooks/${sub.id}`, { retrySchedule: step.delays === null ? null : { delaysSeconds: step.delays } });
        if (res.status === 200) sub.schedules.push(step.delays);
        return note(`  → ${res.status}`);
      }
      case 'clock':
        // One jump at a time (see quiesce). A jump waits for what runs now (an answer, a park, a
        // zombie: seconds at most); one that has not ended after CLOCK_STEP_BUDGET_MS of real time
        // is a clock that stopped skipping, which would take the whole jump (hours) in real time.
        clock = clock.then(async () => {
          const skipped = await Promise.race([stack.env.sleep(step.ms).then(() => true, () => true), sleep(CLOCK_STEP_BUDGET_MS).then(() => false)]);
          if (!skipped) await restartEnvironment(`the time-skipping server's clock stopped skipping (a jump of ${step.ms} ms had not ended after ${CLOCK_STEP_BUDGET_MS} ms)`);
        });
        await clock;
        return;
      case 'breathe':
        await sleep(step.ms);
        return;
    }
  }

  /** Runs seen with the same history ending in WORKFLOW_TASK_STARTED, and for how many rounds (unstrand). */
  const stalled = new Map<string, { events: number; rounds: number }>();

  // The schedule. A step that waits on a parked actor (a lock it holds) goes on in the background.
  const stepViolations: Violation[] = [];
  const subIds = subs.map((s) => s.id);
  for (const [i, step] of plan.steps.entries()) {
    note(`step ${i}: ${describeStep(step, plan.world.subscriptions)}`);
    const running = take(step).catch((err: Error) => note(`  step failed: ${err.message}`));
    const watchdog = setInterval(() => note(`  … still running: ${tasks.size} background task(s), ${batches.filter((b) => b.end === undefined).length} batch(es) running, ${receiver.requests.slice(requestsBefore).filter((r) => r.closedAt === undefined).length} request(s) open`), 5_000);
    void running.finally(() => clearInterval(watchdog));
    if (waiters.size === 0) await running;
    else {
      track(running);
      await Promise.race([running, sleep(PARK_BUDGET_MS)]);
    }
    stats.steps += 1;
    stepDone();
    const held = await heldOnReceiving(subIds);
    for (const h of held) stepViolations.push({ invariant: 'no row is held on a receiving subscription', detail: `after step ${i}: ${labelOf(h.subscriptionId)} holds ${h.n} on a receiving subscription` });
  }

  // Quiesce: no more parks, kills or slow answers; every relay process alive; time skipped until nothing is due.
  note('quiesce');
  quiescing = true;
  for (const w of [...waiters]) w.done();
  for (const [, list] of zombieWaits) for (const release of list) release();
  await clock;
  for (let i = 0; i < RELAY_PROCESSES; i++) {
    const proc = processes[i];
    proc.fault = null;
    if (!proc.alive) startProcess(i);
    else for (const [lane, l] of proc.lanes.entries()) for (const finish of l.written.splice(0)) onLane(proc, lane, `relay ${i}/${lane} finish`, finish);
  }
  apiFault.current = null;
  const swept = new Set<string>();
  const quiesced = await quiesce(processes[0].relay);
  const trace: SeedTrace = {
    seed,
    plan,
    subs,
    workspaceIds: workspaces.map((w) => w.ws.workspace.id),
    requests: receiver.requests.slice(requestsBefore).filter((r) => subs.some((s) => s.path === r.path)),
    batches,
    stats,
    apiKeys: new Map(workspaces.map((w, i) => [i, w.key])),
    swept,
    quiesced,
    stepViolations,
  };
  stack.setSeed(null);
  const violations = await checkInvariants(trace, note);
  return { seed, database: stack.database, violations, log, stats, ms: Math.round(performance.now() - started) };

  async function quiesce(relay: RelayProcess['relay']): Promise<boolean> {
    const deadline = performance.now() + QUIESCE_BUDGET_MS;
    let rounds = 0;
    while (performance.now() < deadline) {
      await Promise.race([Promise.all([...tasks]), sleep(5_000)]);
      await relay.drain().catch((err: Error) => note(`quiesce relay: ${err.message}`));
      const [{ unrelayed }] = await prisma.$queryRaw<{ unrelayed: number }[]>`
        SELECT count(*)::int AS "unrelayed" FROM "Event" WHERE "workspaceId" = ANY(${workspaces.map((w) => w.ws.workspace.id)}::int[]) AND "relayedAt" IS NULL`;
      if (unrelayed > 0) {
        await sleep(RELAY_LEASE_MS);
        continue;
      }
      // Time moves on (stack.env.sleep, one call at a time: concurrent waits on the time-skipping server
      // unbalance its lock of the clock and it skips past running activities) until the next due
      // attempt, or a moment when nothing is due (a run lingering, waiting for room or a retry).
      const running = await runningRuns(subIds);
      const [{ next }] = await prisma.$queryRaw<{ next: Date | null }[]>`
        SELECT min(COALESCE("nextAttemptAt", "createdAt")) AS "next" FROM "Delivery" WHERE "subscriptionId" = ANY(${subIds}::text[]) AND "status" = 'pending'`;
      if (running.length) {
        // The runs' own waits first (a strict run waits for its head's Retry-After while the rows
        // behind it look overdue); else the rows' earliest due time.
        const now = await stack.env.currentTimeMs();
        const untils = await Promise.all(running.map((id) => openTimerFiresAt(id)));
        const waits = untils.filter((u): u is number => typeof u === 'number' && u > now);
        const ahead = waits.length ? Math.min(...waits) - now : next ? next.getTime() - now : 0;
        if (++rounds % 20 === 0) note(`quiesce round ${rounds}: ${running.map(labelOf).join(', ')} running, next due in ${ahead} ms`);
        const sleepMs = Math.min(12 * 3_600_000, Math.max(2_000, ahead + 1_000));
        // Nothing of this seed runs long now (no slow answers, no parks, the sender's time-out
        // 600 ms): a skip that has not ended after SKIP_BUDGET_MS of real time is a clock that
        // stopped skipping (it would take the whole `sleepMs` in real time).
        const skipped = await Promise.race([stack.env.sleep(sleepMs).then(() => true, () => true), sleep(SKIP_BUDGET_MS).then(() => false)]);
        if (!skipped) {
          await restartEnvironment(`the time-skipping server's clock stopped skipping (${sleepMs} ms had not passed after ${SKIP_BUDGET_MS} ms)`);
          continue;
        }
        for (const id of running) await unstrand(id);
        continue;
      }
      const due = await prisma.delivery.groupBy({ by: ['subscriptionId'], where: { subscriptionId: { in: subIds }, status: 'pending' }, _count: true });
      if (due.length) {
        // Nothing runs, yet deliveries wait: only the relay's sweep of overdue deliveries would start their runs.
        await stack.env.sleep(OVERDUE_AFTER_MS + 1_000);
        for (const d of due) swept.add(d.subscriptionId);
        stats.sweeps += due.length;
        note(`sweep: ${due.map((d) => `${labelOf(d.subscriptionId)} (${d._count} pending)`).join(', ')}`);
        for (const d of due) note(`  ${labelOf(d.subscriptionId)}'s last run: ${await lastRun(d.subscriptionId)}`);
        await relay.sweepOverdue();
        continue;
      }
      if (tasks.size) continue;
      note('quiesced');
      return true;
    }
    note('did not quiesce');
    for (const id of subIds) note(`  ${labelOf(id)}: ${await lastRun(id)}`);
    return false;
  }

  /**
   * The time-skipping server strands a run whose workflow task cancels a timer that fired while the
   * task was with the worker: it refuses the completion ("invalid history builder state for
   * action", temporalio/sdk-java#3088) and never sends the task again, so the run's history ends
   * in WORKFLOW_TASK_STARTED for good. No workflow code can do that (a task held by a long local
   * activity records heartbeat completions). The refused task keeps its lock of the server's clock
   * even when the run is terminated, so the server is replaced (restartEnvironment).
   */
  async function unstrand(id: string): Promise<void> {
    const handle = stack.env.client.workflow.getHandle(deliveryRunWorkflowId(id));
    const events = (await handle.fetchHistory().catch(() => null))?.events ?? [];
    const last = events.at(-1)?.eventType;
    const seen = stalled.get(id);
    const still = last === proto.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED && seen?.events === events.length;
    stalled.set(id, { events: events.length, rounds: still ? seen.rounds + 1 : 0 });
    if (!still || seen.rounds + 1 < 3) return;
    stalled.delete(id);
    await restartEnvironment(`${labelOf(id)}'s run was stranded by the time-skipping server (sdk-java#3088)`);
  }

  /**
   * The time-skipping server cannot go on: one of its runs is stranded (a refused task keeps its
   * lock of the clock even when the run is terminated) or its clock no longer skips. A new server
   * and worker take over, and each of the seed's subscriptions with pending deliveries gets a new
   * run, as the overdue sweep would give it after a cluster lost its history: the old runs' claims
   * are stale (the new run's first claim frees them), their batches zombies. The log and the
   * stats say so; the invariants hold across it.
   */
  async function restartEnvironment(why: string): Promise<void> {
    stats.environmentFaults += 1;
    note(`environment fault: ${why}; a new server and worker, the seed's runs started again`);
    for (const b of batches) if (b.end === undefined) b.zombie = true;
    stalled.clear();
    await stack.restart();
    const pending = await prisma.delivery.groupBy({ by: ['subscriptionId'], where: { subscriptionId: { in: subIds }, status: 'pending' } });
    for (const { subscriptionId } of pending) await wakeRun(stack.env.client, taskQueue, { subscriptionId, workspaceId: subById.get(subscriptionId)!.workspaceId });
  }

  /**
   * When the run's earliest open timer fires (server time, ms), read from its history: the server
   * answers it alone, where a query needs the worker (and hangs with a stuck server).
   */
  async function openTimerFiresAt(id: string): Promise<number | null> {
    const history = await stack.env.client.workflow.getHandle(deliveryRunWorkflowId(id)).fetchHistory().catch(() => null);
    const open = new Map<string, number>();
    const types = proto.api.enums.v1.EventType;
    for (const e of history?.events ?? []) {
      if (e.eventType === types.EVENT_TYPE_TIMER_STARTED) {
        const a = e.timerStartedEventAttributes!;
        const at = Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);
        const after = Number(a.startToFireTimeout?.seconds ?? 0) * 1000 + Math.floor((a.startToFireTimeout?.nanos ?? 0) / 1e6);
        open.set(a.timerId!, at + after);
      } else if (e.eventType === types.EVENT_TYPE_TIMER_FIRED) open.delete(e.timerFiredEventAttributes!.timerId!);
      else if (e.eventType === types.EVENT_TYPE_TIMER_CANCELED) open.delete(e.timerCanceledEventAttributes!.timerId!);
    }
    return open.size ? Math.min(...open.values()) : null;
  }

  /** The status of a subscription's latest run and its history's last events, for the log. */
  async function lastRun(id: string): Promise<string> {
    const handle = stack.env.client.workflow.getHandle(deliveryRunWorkflowId(id));
    const description = await handle.describe().catch((err: Error) => err);
    if (description instanceof Error) return description.message;
    const state = description.status.name === 'RUNNING' ? await handle.query(stateQuery).catch((err: Error) => err.message) : null;
    const history = await handle.fetchHistory().catch(() => null);
    const last = (history?.events ?? []).slice(-12).map((e) => `${proto.api.enums.v1.EventType[e.eventType ?? 0]}@${String(e.eventTime?.seconds)}`);
    if (process.env.SIM_DEBUG) (await import('node:fs')).writeFileSync(`/tmp/sim-history-${seed}-${labelOf(id)}.json`, JSON.stringify(history?.events ?? [], null, 1));
    return `${description.status.name}${state ? ` ${JSON.stringify(state)}` : ''}, history ends ${last.join(' ')}`;
  }

  async function runningRuns(ids: string[]): Promise<string[]> {
    const running: string[] = [];
    for (const id of ids) {
      const description = await stack.env.client.workflow.getHandle(deliveryRunWorkflowId(id)).describe().catch(() => null);
      if (description?.status.name === 'RUNNING') running.push(id);
    }
    return running;
  }
}

/** Deliveries held on a subscription that receives (a resume undone, say): one statement, so one snapshot. */
function heldOnReceiving(subscriptionIds: string[]): Promise<{ subscriptionId: string; n: number }[]> {
  return prisma.$queryRaw<{ subscriptionId: string; n: number }[]>`
    SELECT d."subscriptionId", count(*)::int AS "n" FROM "Delivery" d JOIN "WebhookSubscription" s ON s."id" = d."subscriptionId"
     WHERE d."subscriptionId" = ANY(${subscriptionIds}::text[]) AND d."status" = 'held' AND s."condition" = 'receiving' AND s."deletedAt" IS NULL
     GROUP BY d."subscriptionId"`;
}
