import { webhookRepository } from '../../src/webhooks/webhook.repository.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export function createRetentionActivities(clock: () => Date = () => new Date()) {
  return {
    async purgeDeliveryAttempts({ olderThanDays }: { olderThanDays: number }): Promise<{ purged: number }> {
      return { purged: await webhookRepository.purgeAttempts(new Date(clock().getTime() - olderThanDays * DAY_MS)) };
    },
  };
}

export type RetentionActivities = ReturnType<typeof createRetentionActivities>;
