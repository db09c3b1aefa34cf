// What a due delivery waits for: one list wherever it is decided, recorded or shown (the run's
// claim and its `state` query, the delivery log's `waited`, the backlog of GET /webhooks/{id}, their
// GraphQL enums and so the OpenAPI document). No imports: workflow code imports it.

/** What held a due delivery back beyond its schedule (the run's claim; the delivery log's `waited.reason`). */
export const WAIT_REASONS = ['retry_after', 'in_flight_bound', 'rate', 'workspace_cap'] as const;
export type WaitReason = (typeof WAIT_REASONS)[number];

/**
 * What a subscription's deliveries wait for now: nothing (or what waits is being sent), only
 * retries' next attempts, a reason, or (the backlog only: the run has ended) the subscription's pause.
 */
export const BACKLOG_WAITS = ['nothing', 'next_attempt', ...WAIT_REASONS, 'paused'] as const;
export type BacklogWait = (typeof BACKLOG_WAITS)[number];
/** What a run waits for now (its `state` query): a run never waits on a pause, it ends. */
export type RunWait = Exclude<BacklogWait, 'paused'>;
