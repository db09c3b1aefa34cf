// Wakes delivery runs for the outbox relay with at most one signal-with-start in flight per
// subscription. Wakes asked for while one is in flight wait and go together in the next signal.
// So under a burst a subscription's run gets one signal per round trip to Temporal, not one per
// relay batch, and the fewer writes to Temporal's store leave room for other subscriptions'
// signals; when Temporal answers at once nothing waits. Each wake resolves when a signal sent
// after it was asked for succeeded, and rejects with that signal's error (the relay then gives
// its events back to the outbox).
import type { Client } from '@temporalio/client';
import { wakeRun } from '../delivery/wake.ts';
import { inStoredTrace } from '../../tracing/tracing.ts';

interface Wake {
  subscriptionId: string;
  workspaceId: number;
  /** The stored trace of the first event (traces on): Temporal's client interceptor takes it into the run. */
  traceparent: string | null;
}

interface Group extends Wake {
  settle: { resolve: () => void; reject: (err: unknown) => void }[];
}

export function createRunWaker(client: Client, taskQueue: string) {
  /** Per subscription with a signal in flight: the wakes waiting for the next one (null: none yet). */
  const waiting = new Map<string, Group | null>();

  async function send(group: Group) {
    try {
      await inStoredTrace(group.traceparent, () => wakeRun(client, taskQueue, { subscriptionId: group.subscriptionId, workspaceId: group.workspaceId }));
      for (const s of group.settle) s.resolve();
    } catch (err) {
      for (const s of group.settle) s.reject(err);
    }
    const next = waiting.get(group.subscriptionId);
    if (next) {
      waiting.set(group.subscriptionId, null);
      void send(next);
    } else waiting.delete(group.subscriptionId);
  }

  return {
    /** Resolves when a signal-with-start of the subscription's run, sent after this call, succeeded. */
    wake(w: Wake): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        if (!waiting.has(w.subscriptionId)) {
          waiting.set(w.subscriptionId, null);
          void send({ ...w, settle: [{ resolve, reject }] });
          return;
        }
        const next = waiting.get(w.subscriptionId);
        if (next) next.settle.push({ resolve, reject });
        else waiting.set(w.subscriptionId, { ...w, settle: [{ resolve, reject }] });
      });
    },
  };
}
