// What a subscription's delivery run has waiting, and what it waits for, read from its queue (the
// Delivery rows) and what the run last reported on the subscription (its bound, Retry-After, the
// workspace's cap): GET /webhooks/{id}, the settings UI.
import { config } from '../../config.ts';
import type { WebhookSubscription } from '../../generated/prisma/client.ts';
import { queueRepository } from './queue.repository.ts';
import { effectiveInFlight, subscriptionSettings } from './run-state.ts';
import type { BacklogWait } from './wait.ts';

export interface WebhookBacklog {
  pending: number;
  inFlight: number;
  oldestWaitingSince: Date | null;
  waitingFor: BacklogWait;
}

/** What of the subscription's row the backlog reads (what its run last reported, its settings). */
type BacklogSubscription = Pick<WebhookSubscription, 'id' | 'condition' | 'retryAfterUntil' | 'capWaitingSince' | 'maxInFlight' | 'effectiveInFlight' | 'ordering' | 'ratePerSecond'>;

export async function backlogOf(s: BacklogSubscription, now = new Date()): Promise<WebhookBacklog> {
  const q = await queueRepository.backlog(s.id);
  const base = { pending: q.pending + q.held, inFlight: q.inFlight, oldestWaitingSince: q.oldestDueAt };
  if (s.condition === 'paused' && q.held > 0) return { ...base, waitingFor: 'paused' };
  if (q.pending === 0) return { ...base, waitingFor: 'nothing' };
  if (q.oldestDueAt && q.oldestDueAt > now) return { ...base, waitingFor: 'next_attempt' };
  if (s.retryAfterUntil && s.retryAfterUntil > now) return { ...base, waitingFor: 'retry_after' };
  if (s.capWaitingSince) return { ...base, waitingFor: 'workspace_cap' };
  if (q.inFlight >= effectiveInFlight(subscriptionSettings(s, config.webhooks.maxInFlightLimit), s.effectiveInFlight)) return { ...base, waitingFor: 'in_flight_bound' };
  return { ...base, waitingFor: s.ratePerSecond ? 'rate' : 'nothing' };
}
