// GraphQL: a subscription's retry schedule (retry-schedule.ts), shown on the subscription and given on creation and change.
import { builder } from '../../graphql/builder.ts';
import { MAX_RETRY_DELAYS, RETRY_SCHEDULE_NOTE, type RetryScheduleView } from '../message/retry-schedule.ts';

export const RetryScheduleRef = builder.objectRef<RetryScheduleView>('WebhookRetrySchedule').implement({
  description: 'The retry schedule in force: the default seven attempts, or the subscription’s shorter one',
  fields: (t) => ({
    delaysSeconds: t.exposeIntList('delaysSeconds', { description: 'Seconds waited after each failed attempt but the last (each ±10% jitter)' }),
    maxAttempts: t.exposeInt('maxAttempts', { description: 'Scheduled attempts at most: one more than the delays' }),
    spanSeconds: t.exposeInt('spanSeconds', { description: 'The delays added up: how long after its first attempt a delivery may still be retried (a Retry-After is capped within it)' }),
    custom: t.exposeBoolean('custom', { description: 'False: the default schedule' }),
  }),
});

export const RetryScheduleInput = builder.inputType('WebhookRetryScheduleInput', {
  description: RETRY_SCHEDULE_NOTE,
  fields: (t) => ({
    delaysSeconds: t.intList({ required: true, description: `Seconds to wait after each failed attempt but the last; at most ${MAX_RETRY_DELAYS}` }),
  }),
});
