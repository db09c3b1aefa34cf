// Admission: how many more of a workspace's events the relay may start now.
//
// The relay turns events into workflows; left alone it starts a 10,000-event bulk import as fast as
// it can, and the Temporal server and the worker then hold 10,000 workflows' first tasks in a queue
// that every other workspace's next event waits behind (a worker takes eagerly started tasks first
// come, first served). So a workspace's events wait in the outbox (PostgreSQL: durable, and costing
// nothing while they wait) while the workspace already has its share of deliveries "in the engine":
//
// - **undecided**: created, but their workflow has not yet taken a slot or begun to wait (no
//   DeliverySlot row, no attempt, still pending): a workflow task queued or running;
// - **waiting for a slot** (DeliverySlot `waiting`) of a subscription whose receiver answers fast:
//   each costs a signal and a second workflow task when its slot comes.
//
// The share is the sum of the workspace's subscriptions' in-flight bounds (at least
// MIN_ADMISSION): as many as its receivers take at once, so a subscription's bound is full and a
// little queue waits behind it, no more. Events beyond it stay in the outbox until deliveries
// decide. Meanwhile a relay looks again whenever a delivery of its own process takes a slot,
// begins to wait or frees a slot (admissionMayOpen, called by delivery-bounds.repository.ts), and
// every ADMIT_POLL_MS for deliveries of other processes. A workspace is given room only once a
// quarter of its share is free, so that the relay starts its events in batches, not one by one.
//
// Not counted, so that one subscription's trouble does not hold back its workspace's other
// subscriptions: deliveries waiting for a SLOW receiver's slots (one of its slots held longer than
// SLOW_SLOT_MS: the bound itself keeps what it receives in check and its queue waits durably,
// holding nothing), deliveries waiting for a rate or a Retry-After, held deliveries of paused
// subscriptions, retries (attempt 2 and later: they wait on their own timers). An undecided
// delivery older than UNDECIDED_WINDOW_MS no longer counts either (whatever kept it, a database
// outage, a worker away, it does not close the workspace's door for good).
//
// Soft: two relays (or two lanes) that claim at the same moment may each admit the same room.
import { Prisma } from '../generated/prisma/client.ts';

/** A workspace with subscriptions may always have this many deliveries in the engine. */
export const MIN_ADMISSION = 10;
/** ... and at most this many, however many subscriptions it has. */
const MAX_ADMISSION = 500;
/** A subscription holding a slot longer than this has a slow receiver (its queue is not counted). */
export const SLOW_SLOT_MS = 2_000;
/** An undecided delivery older than this no longer counts. */
export const UNDECIDED_WINDOW_MS = 30_000;
/** While a workspace's events wait for admission, the relay looks again this often (at the latest). */
export const ADMIT_POLL_MS = 100;

const listeners = new Set<() => void>();

/** A delivery of this process took a slot, began to wait or freed a slot: room may have opened. */
export function admissionMayOpen(): void {
  for (const listener of listeners) listener();
}

/** Calls `listener` on each admissionMayOpen() of this process; returns the unsubscribe. */
export function onAdmissionMayOpen(listener: () => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

export interface AdmissionSettings {
  /** The in-flight bounds' ceiling (WEBHOOK_MAX_IN_FLIGHT_LIMIT). */
  limit: number;
  /** How long a taken slot is leased for (the delivery activities' SLOT_LEASE_MS). */
  slotLeaseMs: number;
}

/**
 * SQL: for each workspace of `heads`, `events` = how many of its events may be claimed now (NULL:
 * no cap, it has no subscription that could get a delivery). Events are admitted for every
 * subscription of the workspace, so the room in deliveries is divided by their number.
 */
export function admissionRoom(settings: AdmissionSettings): Prisma.Sql {
  const slowBefore = Prisma.sql`(now() AT TIME ZONE 'UTC') + make_interval(secs => ${(settings.slotLeaseMs - SLOW_SLOT_MS) / 1000})`;
  return Prisma.sql`
    SELECT h."workspaceId",
           CASE WHEN s.subs = 0 THEN NULL
                WHEN s.cap - s.engaged < CEIL(s.cap / 4.0) THEN 0
                ELSE CEIL((s.cap - s.engaged)::numeric / s.subs)::int END AS events
      FROM heads h
     CROSS JOIN LATERAL (
       SELECT count(*)::int AS subs,
              LEAST(${MAX_ADMISSION}::int, GREATEST(${MIN_ADMISSION}::int,
                COALESCE(sum(LEAST(${settings.limit}::int, w."maxInFlight", COALESCE(w."inFlightBound", w."maxInFlight"))), 0)))::int AS cap,
              COALESCE(sum(
                (SELECT count(*) FROM "Delivery" d
                  WHERE d."subscriptionId" = w."id" AND d."status" = 'pending'
                    AND d."updatedAt" > (now() AT TIME ZONE 'UTC') - make_interval(secs => ${UNDECIDED_WINDOW_MS / 1000})
                    AND d."attemptCount" = 0
                    AND NOT EXISTS (SELECT 1 FROM "DeliverySlot" x WHERE x."deliveryId" = d."id"))
                + CASE WHEN EXISTS (SELECT 1 FROM "DeliverySlot" x
                                     WHERE x."subscriptionId" = w."id" AND x."state" IN ('held', 'running') AND x."leaseUntil" < ${slowBefore})
                       THEN 0
                       ELSE (SELECT count(*) FROM "DeliverySlot" x WHERE x."subscriptionId" = w."id" AND x."state" = 'waiting') END
              ), 0)::int AS engaged
         FROM "WebhookSubscription" w
        WHERE w."workspaceId" = h."workspaceId" AND w."deletedAt" IS NULL AND w."condition" <> 'disabled'
     ) s`;
}
