// What is kept how long (docs/operators/retention-and-backups.md), and the batched purge of each table.
import { retentionRepository, type EventCursor } from './retention.repository.ts';
import type { RetentionTarget } from './retention.targets.ts';
import { secretRepository } from '../webhooks/subscriptions/secret.repository.ts';
import { jobRunner } from '../jobs/job-runner.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionPolicy {
  /** Delivery attempts, finished deliveries and relayed events without deliveries. */
  webhookLogDays: number;
  /** Notifications, counted from when they were read. */
  readNotificationDays: number;
  /** Rows deleted per statement. */
  batchSize: number;
  /** Audit log entries (AUDIT_LOG_RETENTION_DAYS), counted from when they occurred. */
  auditLogDays?: number;
}

/** AUDIT_LOG_RETENTION_DAYS' default (src/config.ts). */
const AUDIT_LOG_DAYS = 365;

interface PurgeOptions {
  now: Date;
  policy: RetentionPolicy;
  /** Called after each batch (the activity heartbeats here, so a long purge is seen alive). */
  onBatch?: (progress: { target: RetentionTarget; deleted: number }) => void;
}

const daysBefore = (now: Date, days: number) => new Date(now.getTime() - days * DAY_MS);

/** Deletes what `target` no longer keeps, batch after batch until none is full; the rows deleted. */
export async function purge(target: RetentionTarget, { now, policy, onBatch }: PurgeOptions): Promise<number> {
  const limit = policy.batchSize;
  const logCutoff = daysBefore(now, policy.webhookLogDays);
  let deleted = 0;
  const report = (n: number) => {
    deleted += n;
    onBatch?.({ target, deleted });
  };

  if (target === 'events') {
    let cursor: EventCursor | null = null;
    for (;;) {
      const batch = await retentionRepository.purgeEvents(logCutoff, cursor, limit);
      report(batch.deleted);
      if (batch.scanned < limit || !batch.next) return deleted;
      cursor = batch.next;
    }
  }

  const batchOf: Record<Exclude<RetentionTarget, 'events'>, () => Promise<number>> = {
    deliveries: () => retentionRepository.purgeDeliveries(logCutoff, limit),
    attempts: () => retentionRepository.purgeAttempts(logCutoff, limit),
    notifications: () => retentionRepository.purgeReadNotifications(daysBefore(now, policy.readNotificationDays), limit),
    sessions: () => retentionRepository.purgeExpiredSessions(now, limit),
    idempotencyRecords: () => retentionRepository.purgeExpiredIdempotencyRecords(now, limit),
    previousSecrets: () => secretRepository.clearExpiredPrevious(now, limit),
    auditEntries: () => retentionRepository.purgeAuditEntries(daysBefore(now, policy.auditLogDays ?? AUDIT_LOG_DAYS), limit),
    bulkJobs: () => jobRunner.purgeExpired(now, limit),
  };
  for (;;) {
    const n = await batchOf[target]();
    report(n);
    if (n < limit) return deleted;
  }
}
