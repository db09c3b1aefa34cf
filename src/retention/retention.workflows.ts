// Retention (docs/operators/retention-and-backups.md): a Temporal Schedule (schedule.ts) runs this workflow every
// hour; it purges table after table in the order of RETENTION_TARGETS, which never leaves a
// delivery without its event or the attempts it showed.
import { proxyActivities } from '@temporalio/workflow';
import type { RetentionActivities } from './retention.activities.ts';
import { RETENTION_TARGETS, type RetentionTarget } from './retention.targets.ts';

const { purgeExpired } = proxyActivities<RetentionActivities>({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '10 seconds', maximumInterval: '5 minutes' },
});

export async function retentionWorkflow(): Promise<Record<RetentionTarget, number>> {
  const purged = {} as Record<RetentionTarget, number>;
  for (const target of RETENTION_TARGETS) purged[target] = (await purgeExpired({ target })).purged;
  return purged;
}
