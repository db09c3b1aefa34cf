// One activity per table: it purges in batches until done and heartbeats after each batch, so
// Temporal sees a long purge alive (heartbeatTimeout) and a stuck one is retried.
import { Context } from '@temporalio/activity';
import { config } from '../config.ts';
import { purge, type RetentionPolicy } from './retention.service.ts';
import type { RetentionTarget } from './retention.targets.ts';

export function createRetentionActivities(deps: { clock?: () => Date; policy?: RetentionPolicy } = {}) {
  const clock = deps.clock ?? (() => new Date());
  const policy = deps.policy ?? config.retention;
  return {
    async purgeExpired({ target }: { target: RetentionTarget }): Promise<{ purged: number }> {
      const purged = await purge(target, { now: clock(), policy, onBatch: (progress) => Context.current().heartbeat(progress) });
      return { purged };
    },
  };
}

export type RetentionActivities = ReturnType<typeof createRetentionActivities>;
