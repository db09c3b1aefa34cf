// What one seed of the delivery engine's simulation does: the world it builds (workspaces,
// subscriptions and how their receivers behave) and its schedule of steps, all drawn from the
// seed's "world" and "schedule" streams. Pure: the harness (harness.ts) carries the steps out on
// the real relay, worker, database and receiver.
import type { SeededRandom } from './random.ts';

export type DatabaseKind = 'pglite' | 'postgres';

/**
 * How a subscription's receiver tends to answer (each answer is still drawn per request, see
 * harness.ts): mostly 2xx; often 5xx; 429/503 with Retry-After; slowly; or now and then 410 Gone.
 */
export type Mood = 'healthy' | 'flaky' | 'overloaded' | 'slow' | 'gone';

export interface SubscriptionPlan {
  /** s0, s1, …: the subscription's name in the log and in every draw about it. */
  label: string;
  workspace: number;
  ordering: 'concurrent' | 'strict';
  maxInFlight: number;
  events: string[];
  /** Index of the board it is limited to (null: every board). */
  board: number | null;
  /** Its retry schedule's delays in seconds (null: the default seven attempts). */
  retryDelays: number[] | null;
  mood: Mood;
}

export interface WorldPlan {
  workspaces: number;
  subscriptions: SubscriptionPlan[];
}

export const RELAY_PROCESSES = 2;
export const RELAY_LANES = 2;

export type ConditionStep = 'pause' | 'resume' | 'disable' | 'enable' | 'delete';

export type Step =
  /** A ticket created through the API (ticket.created) on a board of a workspace. */
  | { kind: 'ticket'; workspace: number; board: number; ticket: number }
  /** A change of an earlier ticket through the API: its subject (ticket.updated) or state (ticket.state_changed). */
  | { kind: 'update'; ticket: number; change: 'subject' | 'state' }
  /** POST /webhooks/{id}/test: a webhook.test event for that subscription alone. */
  | { kind: 'test-event'; sub: number }
  /** (PostgreSQL) An event written in a transaction that commits only `after` steps later, as a slow request's would. */
  | { kind: 'late-commit'; workspace: number; board: number; after: number }
  /** A relay lane leases a batch of events and writes their deliveries (takeBatch). */
  | { kind: 'relay-take'; process: number; lane: number }
  /** A lane wakes the runs of its oldest batch written and marks it relayed (the batch's finish). */
  | { kind: 'relay-finish'; process: number; lane: number }
  /** A relay process dies: its batches are never finished (their leases run out), its lanes stop. */
  | { kind: 'relay-kill'; process: number }
  | { kind: 'relay-restart'; process: number }
  /**
   * A process's Temporal connection fails its next `calls` signal-with-starts, before they reach the
   * server or after; process RELAY_PROCESSES is the API's (a resume's start of its run).
   */
  | { kind: 'signal-fault'; process: number; when: 'before' | 'after'; calls: number }
  | { kind: ConditionStep; sub: number }
  | { kind: 'max-in-flight'; sub: number; value: number }
  | { kind: 'retry-schedule'; sub: number; delays: number[] | null }
  /** The time-skipping server's clock jumps ahead (env.sleep): due retries and Retry-Afters fire. */
  | { kind: 'clock'; ms: number }
  /** The driver waits this long (real ms) while the worker and the receivers go on. */
  | { kind: 'breathe'; ms: number };

export interface SeedPlan {
  world: WorldPlan;
  steps: Step[];
}

const OPERATIONAL = ['webhook.paused', 'webhook.disabled', 'webhook.resumed', 'webhook.enabled', 'webhook.delivery_failed'];
const SCHEDULES: (number[] | null)[] = [null, [], [60], [60, 120], [300, 600, 1800]];
const JUMPS_MS = [1_000, 15_000, 60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 8 * 3_600_000];

export function planSeed(random: SeededRandom, options: { steps: number; database: DatabaseKind }): SeedPlan {
  const w = random.stream('world');
  const workspaces = w.int(1, 2);
  const subscriptions: SubscriptionPlan[] = Array.from({ length: w.int(2, 4) }, (_, i) => ({
    label: `s${i}`,
    workspace: i < workspaces ? i : w.int(0, workspaces - 1),
    ordering: w.chance(0.35) ? 'strict' : 'concurrent',
    maxInFlight: w.int(1, 6),
    events: [
      'ticket.created',
      ...(w.chance(0.6) ? ['ticket.updated'] : []),
      ...(w.chance(0.5) ? ['ticket.state_changed'] : []),
      ...(w.chance(0.25) ? OPERATIONAL : []),
    ],
    board: w.chance(0.3) ? w.int(0, 1) : null,
    retryDelays: w.pick(SCHEDULES),
    mood: w.weighted<Mood>({ healthy: 4, flaky: 3, overloaded: 2, slow: 2, gone: 1 }),
  }));
  const world = { workspaces, subscriptions };

  const s = random.stream('schedule');
  const steps: Step[] = [];
  let tickets = 0;
  const sub = () => s.int(0, subscriptions.length - 1);
  const process = () => s.int(0, RELAY_PROCESSES - 1);
  const lane = () => s.int(0, RELAY_LANES - 1);
  // Operators flap: a pause is often undone a step or two later, which is when a resume meets a
  // claim that read the pause (the race of a resume undone).
  const later: { at: number; step: Step }[] = [];
  while (steps.length < options.steps) {
    const due = later.findIndex((l) => l.at <= steps.length);
    if (due >= 0) {
      steps.push(later.splice(due, 1)[0].step);
      continue;
    }
    const kind = s.weighted({
      ticket: 14,
      update: tickets ? 8 : 0,
      'test-event': 2,
      'late-commit': options.database === 'postgres' ? 3 : 0,
      'relay-take': 16,
      'relay-finish': 14,
      'relay-kill': 1.5,
      'relay-restart': 2,
      'signal-fault': 1.5,
      pause: 3,
      resume: 4,
      disable: 1.2,
      enable: 1.5,
      delete: 0.4,
      'max-in-flight': 3,
      'retry-schedule': 1.5,
      clock: globalThis.process.env.SIM_NO_CLOCK ? 0 : 3,
      breathe: 6,
    });
    switch (kind) {
      case 'ticket':
        steps.push({ kind, workspace: s.int(0, workspaces - 1), board: s.int(0, 1), ticket: tickets++ });
        break;
      case 'update':
        steps.push({ kind, ticket: s.int(0, tickets - 1), change: s.chance(0.5) ? 'subject' : 'state' });
        break;
      case 'test-event':
        steps.push({ kind, sub: sub() });
        break;
      case 'late-commit':
        steps.push({ kind, workspace: s.int(0, workspaces - 1), board: s.int(0, 1), after: s.int(1, 4) });
        break;
      case 'relay-take':
      case 'relay-finish':
        steps.push({ kind, process: process(), lane: lane() });
        break;
      case 'relay-kill':
      case 'relay-restart':
        steps.push({ kind, process: process() });
        break;
      case 'signal-fault':
        steps.push({ kind, process: s.int(0, RELAY_PROCESSES), when: s.chance(0.5) ? 'before' : 'after', calls: s.int(1, 3) });
        break;
      case 'max-in-flight':
        steps.push({ kind, sub: sub(), value: s.int(1, 10) });
        break;
      case 'retry-schedule':
        steps.push({ kind, sub: sub(), delays: s.pick(SCHEDULES) });
        break;
      case 'clock':
        steps.push({ kind, ms: s.pick(JUMPS_MS) });
        break;
      case 'breathe':
        steps.push({ kind, ms: s.int(5, 60) });
        break;
      default: {
        const which = sub();
        steps.push({ kind, sub: which });
        if (kind === 'pause' && s.chance(0.5)) later.push({ at: steps.length + s.int(1, 2), step: { kind: 'resume', sub: which } });
      }
    }
  }
  return { world, steps };
}

/** One line of the step log. */
export function describeStep(step: Step, subs: SubscriptionPlan[]): string {
  const { kind, ...rest } = step;
  const about = 'sub' in step ? ` ${subs[step.sub].label}` : '';
  const args = Object.entries(rest)
    .filter(([k]) => k !== 'sub')
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(' ');
  return `${kind}${about}${args ? ` ${args}` : ''}`;
}
