// The outbox relay: turns committed Event rows into deliveries, one per matching subscription
// (the subscription's delivery queue, in event order), and wakes each such subscription's delivery
// run (signal-with-start `deliveries:<subscriptionId>`: a running run takes the new deliveries in,
// an idle subscription gets a new run).
//
// Why nothing is lost or doubled: an event is marked relayed only after the runs of all its
// subscriptions were signalled; a relay that dies before that leaves it unrelayed, and the next
// relay (after the lease) does the same work again, which creates no second delivery (unique
// (event, subscription)) and at most wakes a run once more (harmless: it finds its queue). The
// deliveries are written before the signal, so a run that takes the signal finds them. Several
// relays (API and worker processes) share the work through leases taken with SKIP LOCKED.
import type { Client } from '@temporalio/client';
import { logger } from '../../logger.ts';
import { supervise } from '../../supervise.ts';
import { wakeRun } from '../delivery/wake.ts';
import { createRunWaker } from './run-waker.ts';
import { deliveryRunWorkflowId } from '../delivery/ids.ts';
import { OVERDUE_AFTER_MS, RELAY_BACKOFF_MAX_MS, RELAY_BATCH_SIZE, RELAY_LANES, RELAY_LEASE_MS, RELAY_POLL_MS, RELAY_POLL_UNLISTENED_MS, RELAY_SIGNAL_CONCURRENCY, RELAY_SWEEP_MS, WAKING_EVENTS_PER_LANE } from './constants.ts';
import { interleave } from '../delivery/interleave.ts';
import { queueRepository } from '../delivery/queue.repository.ts';
import { relayRepository, type ClaimedEvent } from './relay.repository.ts';
import { matchingSubscriptions } from './event-match.ts';
import { outboxRelayedEvents, outboxRelayPickupDelay, outboxRelayStepDuration, outboxRelayWakingEvents } from '../../metrics/metrics.ts';

interface RelayOptions {
  client: Client;
  taskQueue: string;
  /**
   * Idle wait between looks at the outbox. With `listen` this is only the fallback for a missed
   * notification; without it, how late an event may go out.
   */
  pollMs?: number;
  /**
   * Subscribes to commits of new events (`db.listen` on channel `event_outbox`, which the Event
   * table's trigger notifies): the relay then wakes at once instead of at its next poll.
   */
  listen?: (onEvents: () => void) => Promise<() => Promise<void>>;
  batchSize?: number;
  /** How long a relay holds the events it took before another may take them. */
  leaseMs?: number;
  /** Runs signalled at once, per lane. */
  concurrency?: number;
  /** How often to look for subscriptions with overdue deliveries and no run taking them (their runs are started). */
  sweepMs?: number;
  /**
   * Loops relaying batches at once in `startOutboxRelay`: with two, one lane claims and writes
   * while the other's runs are signalled, so a slow signal does not pause the outbox.
   */
  lanes?: number;
  /** Events a lane may have waking at once before it stops claiming (WAKING_EVENTS_PER_LANE; a test's smaller cap). */
  wakingEventsPerLane?: number;
  /** The time the sweep judges deliveries overdue by (tests on the time-skipping server pass its clock, as the activities get it). */
  clock?: () => Date | Promise<Date>;
}

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<void>): Promise<PromiseSettledResult<void>[]> {
  const results: PromiseSettledResult<void>[] = [];
  for (let i = 0; i < items.length; i += size) results.push(...(await Promise.allSettled(items.slice(i, i + size).map(fn))));
  return results;
}

export interface OutboxRelay {
  stop(): Promise<void>;
}

/** The relay's steps without its loop: `drain` relays what waits now (tests call it directly). */
export function createOutboxRelay(options: RelayOptions) {
  const { client, taskQueue } = options;
  const batchSize = options.batchSize ?? RELAY_BATCH_SIZE;
  const leaseMs = options.leaseMs ?? RELAY_LEASE_MS;
  const concurrency = options.concurrency ?? RELAY_SIGNAL_CONCURRENCY;
  const waker = createRunWaker(client, taskQueue);

  /**
   * One batch's claim and its deliveries' rows: returns how many events were taken (0 when the
   * outbox is empty) and `finish`, which wakes their runs and marks them relayed (until then their
   * lease keeps other relays off them; if it fails, it releases the lease of those it could not wake).
   */
  async function takeBatch(): Promise<{ taken: number; finish: () => Promise<void> }> {
    let step = outboxRelayStepDuration.startTimer({ step: 'claim' });
    const events = await relayRepository.claimEvents(batchSize, leaseMs);
    if (!events.length) return { taken: 0, finish: async () => undefined };
    step();
    await interleave('relay:claimed', events.map((e) => e.id).join(','));
    const claimedAt = Date.now();
    for (const e of events) outboxRelayPickupDelay.observe(Math.max(0, claimedAt - e.occurredAt.getTime()) / 1000);
    step = outboxRelayStepDuration.startTimer({ step: 'write' });
    // An event whose deliveries an earlier pass wrote (its relay died before marking it relayed)
    // gets no new ones: matched again now, a subscription enabled since would get it after its
    // later events, which a strict subscription's claim no longer waits for (found by the
    // simulation, seed 371). Its runs are only woken.
    const fresh = events.filter((e) => !e.written);
    const subscriptions = await relayRepository.subscriptionsForRelay([...new Set(fresh.map((e) => e.workspaceId))]);
    const matched = fresh.flatMap((event) => matchingSubscriptions(event, subscriptions).map((s) => ({ event, subscription: s })));
    // A paused subscription's count against its held-delivery cap is taken per delivery as it is written; the events beyond it are skipped for it.
    const paused = new Set(subscriptions.filter((s) => s.condition === 'paused').map((s) => s.id));
    const pairs = await relayRepository.createDeliveries(
      matched.map((p) => ({ ...p, eventId: p.event.id, subscriptionId: p.subscription.id, seq: p.event.seq, workflowId: deliveryRunWorkflowId(p.subscription.id), payloadMode: p.subscription.payload })),
      paused,
    );
    // Only after every delivery of these events is committed: a strict subscription's next event waits until then.
    await relayRepository.markDeliveriesWritten(events.map((e) => e.id));
    // One wake per subscription for the whole batch, naming its events in order (the waker joins it to a signal in flight).
    const bySubscription = new Map<string, { workspaceId: number; events: ClaimedEvent[] }>();
    const written = new Map(events.filter((e) => e.written).map((e) => [e.id, e]));
    const earlier = (await relayRepository.subscriptionsWithDeliveries([...written.keys()])).map((d) => ({ event: written.get(d.eventId)!, subscription: { id: d.subscriptionId, workspaceId: written.get(d.eventId)!.workspaceId } }));
    for (const { event, subscription } of [...pairs, ...earlier].sort((a, b) => (a.event.seq < b.event.seq ? -1 : a.event.seq > b.event.seq ? 1 : 0))) {
      const entry = bySubscription.get(subscription.id) ?? { workspaceId: subscription.workspaceId, events: [] };
      entry.events.push(event);
      bySubscription.set(subscription.id, entry);
    }
    step();
    await interleave('relay:written', events.map((e) => e.id).join(','));
    return { taken: events.length, finish: () => wakeAndMark(events, bySubscription) };
  }

  async function wakeAndMark(events: ClaimedEvent[], bySubscription: Map<string, { workspaceId: number; events: ClaimedEvent[] }>): Promise<void> {
    let step = outboxRelayStepDuration.startTimer({ step: 'signal' });
    const failed = new Set<string>();
    // A run with a batch in flight claims again when it ends and takes these in: only the others are woken.
    const asleep = await queueRepository.wakeNeeded([...bySubscription.keys()]);
    const results = await inBatches([...bySubscription].filter(([id]) => asleep.has(id)), concurrency, async ([subscriptionId, { workspaceId, events: joined }]) => {
      try {
        // Joins the subscription's signal in flight, if any (run-waker.ts).
        await waker.wake({ subscriptionId, workspaceId, traceparent: joined[0].traceparent });
      } catch (err) {
        for (const e of joined) failed.add(e.id);
        throw err;
      }
    });
    step();
    const done = events.filter((e) => !failed.has(e.id)).map((e) => e.id);
    if (done.length) {
      step = outboxRelayStepDuration.startTimer({ step: 'mark' });
      await relayRepository.markRelayed(done, new Date());
      step();
      outboxRelayedEvents.inc(done.length);
    }
    if (failed.size) {
      await relayRepository.releaseLease([...failed]);
      const reason: unknown = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')?.reason;
      throw Object.assign(new Error(`could not wake the delivery runs of ${failed.size} events`), { cause: reason });
    }
  }

  /** One batch, relayed to its end: returns how many events were taken (0 when the outbox is empty). */
  async function relayBatch(): Promise<number> {
    const { taken, finish } = await takeBatch();
    await finish();
    return taken;
  }

  /** Wakes the runs of subscriptions whose pending deliveries are overdue (no run is taking them: constants.ts OVERDUE_AFTER_MS). */
  async function sweepOverdue() {
    const now = options.clock ? await options.clock() : new Date();
    const overdue = await queueRepository.overdue(new Date(now.getTime() - OVERDUE_AFTER_MS));
    for (const s of overdue) await wakeRun(client, taskQueue, { subscriptionId: s.id, workspaceId: s.workspaceId });
    return overdue.length;
  }

  /** Relays everything waiting now; resolves with the number of events taken. */
  async function drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await relayBatch();
      total += n;
      if (n < batchSize) return total;
    }
  }

  return { drain, sweepOverdue, takeBatch, batchSize };
}

/** The channel the Event table's trigger notifies on every commit that wrote events. */
export const EVENT_OUTBOX_CHANNEL = 'event_outbox';


/**
 * The relay as the service runs it: `lanes` loops, each draining, then waiting for a notification
 * of new events (or `pollMs` at most), backing off while it cannot relay. A lane claims its next
 * batch as soon as the last one's delivery rows are written, while that batch's runs are still
 * being woken (at most WAKING_EVENTS_PER_LANE events at once): so a slow signal-with-start holds neither
 * the lane's next claim nor the other lanes' (the leases keep the lanes off each other's events).
 * A batch that could not be woken makes its lane back off. The first lane also sweeps for overdue runs.
 */
export function startOutboxRelay(options: RelayOptions): OutboxRelay {
  const { takeBatch, batchSize, sweepOverdue } = createOutboxRelay(options);
  const pollMs = options.pollMs ?? (options.listen ? RELAY_POLL_MS : RELAY_POLL_UNLISTENED_MS);
  const sweepMs = options.sweepMs ?? RELAY_SWEEP_MS;
  const lanes = Math.max(1, options.lanes ?? RELAY_LANES);
  const wakingCap = options.wakingEventsPerLane ?? WAKING_EVENTS_PER_LANE;
  let lastSweep = 0;
  const loops = Array.from({ length: lanes }, (_, lane) => {
    const waking = new Set<Promise<void>>();
    let wakingEvents = 0;
    const gauge = outboxRelayWakingEvents.labels({ lane: String(lane) });
    const count = (change: number) => gauge.set((wakingEvents += change));
    let failure: { reason: unknown } | undefined;
    const failed = () => {
      const f = failure;
      failure = undefined;
      if (f) throw f.reason;
    };
    const loop = supervise({
      async run({ failures }) {
        failed();
        for (;;) {
          while (wakingEvents >= wakingCap) await Promise.race(waking);
          failed();
          const { taken, finish } = await takeBatch();
          if (taken === 0) break;
          count(taken);
          const wake: Promise<void> = finish()
            .catch((reason) => void (failure ??= { reason }))
            .finally(() => {
              waking.delete(wake);
              count(-taken);
            });
          waking.add(wake);
          if (taken < batchSize) break;
        }
        // While the lane fails, a run ends with its wakes: its back-off grows and a recovery is
        // logged once, when a batch was woken.
        if (failures() > 0) {
          await Promise.all(waking);
          failed();
        }
        if (lane === 0 && Date.now() - lastSweep >= sweepMs) {
          lastSweep = Date.now();
          await sweepOverdue();
        }
      },
      idleMs: pollMs,
      // The database or Temporal is away: keep the events and try again, backing off to 10 s.
      backoffMs: (failures) => Math.min(RELAY_BACKOFF_MAX_MS, pollMs * 2 ** Math.min(failures, 7)),
      failed: 'outbox relay could not relay; retrying',
      recovered: 'outbox relay recovered',
      fields: { lane },
    });
    return {
      wake: () => loop.wake(),
      async stop() {
        await loop.stop();
        await Promise.all(waking);
      },
    };
  });
  // Events committed during a drain may have been claimed before their commit: every lane drains
  // again at once. While a lane backs off, notifications wait for its back-off.
  const unlisten = options.listen?.(() => {
    for (const loop of loops) loop.wake();
  });
  // Until the subscription is in place, the poll alone wakes the relay; a failure to subscribe
  // (the listener retries on its own) leaves it at that.
  unlisten?.catch((err) => logger.warn({ err }, 'outbox relay cannot listen for new events; polling'));

  return {
    async stop() {
      await Promise.all(loops.map((loop) => loop.stop()));
      await (await unlisten?.catch(() => undefined))?.();
    },
  };
}
