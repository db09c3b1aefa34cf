// What one sent webhook attempt adds to the metrics (src/webhooks/delivery/activities.ts calls it
// once the attempt is recorded; an activity retry that finds it recorded does not count again).
import type { AttemptTrigger } from '../generated/prisma/client.ts';
import { webhookAttemptDuration, webhookAttempts, webhookDeliveriesSettled, webhookRetriesScheduled, webhookSubscriptionChanges } from './metrics.ts';

interface SentAttempt {
  outcome: 'succeeded' | 'failed' | 'gone';
  trigger: AttemptTrigger;
  durationMs: number;
  /** A failed scheduled attempt with none left. */
  lastScheduled: boolean;
  /** This attempt moved the subscription to paused / disabled. */
  paused: boolean;
  disabled: boolean;
}

export function countAttempt(a: SentAttempt): void {
  webhookAttempts.inc({ outcome: a.outcome, trigger: a.trigger });
  webhookAttemptDuration.observe({ outcome: a.outcome }, a.durationMs / 1000);
  // A manual re-send is outside the schedule: it neither schedules a retry nor ends the delivery.
  if (a.trigger !== 'manual') {
    if (a.outcome === 'failed' && !a.lastScheduled) webhookRetriesScheduled.inc();
    else webhookDeliveriesSettled.inc({ outcome: a.outcome === 'gone' ? 'cancelled' : a.outcome });
  }
  if (a.paused) webhookSubscriptionChanges.inc({ condition: 'paused' });
  if (a.disabled) webhookSubscriptionChanges.inc({ condition: 'disabled' });
}
