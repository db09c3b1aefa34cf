// The tables retention purges, in the order it purges them: finished deliveries go (with their
// attempts) before the leftover old attempts, so no delivery is ever left without the attempts it
// showed; events go last, once no delivery refers to them. previousSecrets clears (not deletes) the
// webhook secrets whose 24 hours after a rotation are over; auditEntries, the audit log's; bulkJobs, finished bulk jobs. No imports: the workflow sandbox loads it.
export const RETENTION_TARGETS = ['deliveries', 'attempts', 'events', 'notifications', 'sessions', 'idempotencyRecords', 'previousSecrets', 'auditEntries', 'bulkJobs'] as const;
export type RetentionTarget = (typeof RETENTION_TARGETS)[number];
