// Data access of the per-subscription bounds: the in-flight slots, the rate and Retry-After, and
// the AIMD bound. The rules run in PostgreSQL (functions of migration delivery_bounds) under a
// lock on the subscription's row, one call per attempt each way.
import { prisma } from '../db/db.ts';
import { admissionMayOpen } from './relay-admission.ts';

/** A held slot outlives a worker that died mid-attempt this long (an attempt takes at most ~10 s). */
export const SLOT_LEASE_MS = 60_000;

/** Why an attempt did not go out yet; the workflow waits, holding no worker slot. */
export type WaitReason = 'retry_after' | 'in_flight_bound' | 'rate';

/** `until`: the time given (Retry-After, the rate), or for the bound when to look again. */
type AcquireResult = { outcome: 'acquired' } | { outcome: WaitReason; until: Date | null };

/** How an attempt's answer moves the subscription's bound (AIMD). */
export type BoundSignal = 'success' | 'overload' | 'none';

export interface BoundSettings {
  /** The operator's maximum (WEBHOOK_MAX_IN_FLIGHT_LIMIT): no subscription's bound exceeds it. */
  limit: number;
  /** How long a held slot outlives a worker that died mid-attempt. */
  leaseMs: number;
  /** How long a waiting delivery keeps its place without looking again. */
  waitLeaseMs: number;
  /**
   * When the head of the queue looks again should no hand-over come; a delivery `n` places back
   * waits (1 + n / bound) times as long, at most half its place's lease.
   */
  lookAgainMs: number;
}

interface AcquireInput {
  deliveryId: string;
  subscriptionId: string;
  seq: bigint;
  workflowId: string;
  now: Date;
  /** The start time was reserved by an earlier call that answered `rate`. */
  rateReserved: boolean;
  /** The scheduled attempt's number and its delay should it fail: kept while it waits, for an attempt made on its behalf. */
  attempt: number;
  retryDelayMs: number | null;
}

/** A waiting delivery a release handed a slot to; `stolen`: its attempt is the releaser's to send. */
export interface GrantedSlot {
  deliveryId: string;
  workflowId: string;
  stolen: boolean;
  attempt: number | null;
  retryDelayMs: number | null;
  since: Date;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

export const deliveryBoundsRepository = {
  async acquire(input: AcquireInput, settings: BoundSettings): Promise<AcquireResult> {
    const [row] = await prisma.$queryRaw<{ outcome: string; until: Date | null }[]>`
      SELECT "outcome", "until" FROM "acquire_delivery_slot"(${input.deliveryId}, ${input.subscriptionId}, ${input.seq}::bigint, ${input.workflowId},
        ${iso(input.now)}::timestamp(3), ${settings.leaseMs}::int, ${settings.waitLeaseMs}::int, ${settings.limit}::int, ${input.rateReserved}, ${settings.lookAgainMs}::int, ${input.attempt}::int, ${input.retryDelayMs}::int)`;
    admissionMayOpen();
    if (!row || row.outcome === 'acquired') return { outcome: 'acquired' };
    return { outcome: row.outcome as WaitReason, until: row.until };
  },

  /**
   * Frees the delivery's slot; returns the waiting deliveries it was handed to (their workflows
   * are to be told). With `steal`, the oldest of them may come back `stolen`: its attempt is the
   * caller's to send (the functions of migration delivery_slot_hand_over).
   */
  async release(
    input: { deliveryId: string; subscriptionId: string; now: Date; signal: BoundSignal; retryAfterUntil: Date | null; steal?: boolean },
    settings: BoundSettings,
  ): Promise<GrantedSlot[]> {
    const granted = await prisma.$queryRaw<GrantedSlot[]>`
      SELECT "deliveryId", "workflowId", "stolen", "attempt", "retryDelayMs", "since" FROM "release_delivery_slot"(${input.deliveryId}, ${input.subscriptionId}, ${iso(input.now)}::timestamp(3),
        ${settings.leaseMs}::int, ${settings.limit}::int, ${input.signal}, ${iso(input.retryAfterUntil)}::timestamp(3), ${input.steal === true})`;
    admissionMayOpen();
    return granted;
  },

  /** A slot taken for an attempt on another's behalf that will not be made after all: its own delivery's again. */
  async unsteal(deliveryId: string): Promise<void> {
    await prisma.deliverySlot.updateMany({ where: { deliveryId, state: 'running' }, data: { state: 'held' } });
  },

  /** A delivery that will not attempt again (cancelled, held) gives up its place. */
  async forget(deliveryId: string): Promise<void> {
    await prisma.deliverySlot.deleteMany({ where: { deliveryId } });
  },
};
