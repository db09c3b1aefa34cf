// Wakes delivery runs for the outbox relay with at most one signal-with-start in flight per
// subscription. Wakes asked for while one is in flight wait and go together in the next signal,
// naming all their events (at most MAX_EVENT_IDS a signal). So under a burst a subscription's run
// gets one signal per round trip to Temporal, not one per relay batch, and the fewer writes to
// Temporal's store leave room for other subscriptions' signals; when Temporal answers at once
// nothing waits. Each wake resolves when a signal naming its events succeeded, and rejects with
// that signal's error (the relay then gives their events back to the outbox).
import type { Client } from '@temporalio/client';
import { startDeliveryRun } from '../../../workflows/delivery/client.ts';
import { inStoredTrace } from '../../tracing/tracing.ts';

/** Event ids named by one signal at most (a run lists EVENT_IDS_PER_RUN in all; a signal's payload stays small). */
export const MAX_EVENT_IDS = 500;

interface Wake {
  subscriptionId: string;
  workspaceId: number;
  eventIds: string[];
  /** The stored trace of the first event (traces on): Temporal's client interceptor takes it into the run. */
  traceparent: string | null;
}

interface Group extends Wake {
  settle: { resolve: () => void; reject: (err: unknown) => void }[];
}

export function createRunWaker(client: Client, taskQueue: string) {
  /** Per subscription with a signal in flight: the groups waiting for it, in order. */
  const waiting = new Map<string, Group[]>();

  async function send(group: Group) {
    try {
      await inStoredTrace(group.traceparent, () =>
        startDeliveryRun(client, taskQueue, { subscriptionId: group.subscriptionId, workspaceId: group.workspaceId }, group.eventIds),
      );
      for (const s of group.settle) s.resolve();
    } catch (err) {
      for (const s of group.settle) s.reject(err);
    }
    const next = waiting.get(group.subscriptionId)?.shift();
    if (next) void send(next);
    else waiting.delete(group.subscriptionId);
  }

  return {
    /** Resolves when a signal-with-start of the subscription's run naming these events succeeded. */
    wake(w: Wake): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        const queue = waiting.get(w.subscriptionId);
        if (!queue) {
          waiting.set(w.subscriptionId, []);
          void send({ ...w, eventIds: [...w.eventIds], settle: [{ resolve, reject }] });
          return;
        }
        const last = queue.at(-1);
        if (last && last.eventIds.length + w.eventIds.length <= MAX_EVENT_IDS) {
          last.eventIds.push(...w.eventIds);
          last.settle.push({ resolve, reject });
        } else queue.push({ ...w, eventIds: [...w.eventIds], settle: [{ resolve, reject }] });
      });
    },
  };
}
