// Operational events (webhook.paused, .disabled, .resumed, .enabled, .delivery_failed): written
// through the outbox in the transaction that changes the subscription or fails the delivery, so
// the event exists exactly when the change is committed. The relay sends them to the workspace's
// other subscriptions that listen to them, never to the one they are about (outbox-relay.ts). Each
// keeps the board filter its subscription had when it was written (Event.aboutBoardIds): who may
// receive and see it is decided by those boards, not by a filter changed since.
import type { Prisma } from '../../generated/prisma/client.ts';
import type { EventActor, EventType, OperationalEventType } from '../../events/event.envelope.ts';
import { isOperationalEvent } from '../../events/event.envelope.ts';
import { writeEvent } from '../../events/event.outbox.ts';

type Tx = Prisma.TransactionClient;
type ConditionEventType = Exclude<OperationalEventType, 'webhook.delivery_failed'>;
type ConditionReason = 'failures' | 'gone' | 'rejected' | 'manual';

/** The subscription as the event shows it, read in the writing transaction (after the change). */
async function subject(tx: Tx, subscriptionId: string) {
  return tx.webhookSubscription.findUniqueOrThrow({
    where: { id: subscriptionId },
    select: { id: true, url: true, description: true, condition: true, consecutiveFailures: true, boardIds: true, workspace: { select: { id: true, domain: true } } },
  });
}

/**
 * Its URL as far as the origin: Slack, Teams and Zapier URLs hold tokens in the path or query, and
 * the event goes to every other subscription that listens, which may be another party's.
 */
const summary = (s: Awaited<ReturnType<typeof subject>>) => ({ subscriptionId: s.id, url: new URL(s.url).origin, description: s.description, condition: s.condition });

/** A change of condition; `actor` null when the service made it (a pause, a 410). */
export async function writeConditionEvent(tx: Tx, type: ConditionEventType, subscriptionId: string, reason: ConditionReason, actor: EventActor | null, at: Date) {
  const s = await subject(tx, subscriptionId);
  return writeEvent(tx, {
    type,
    workspace: s.workspace,
    actor,
    aboutSubscriptionId: s.id,
    aboutBoardIds: s.boardIds,
    occurredAt: at,
    data: { ...summary(s), reason, consecutiveFailures: s.consecutiveFailures },
  });
}

/**
 * Whether a delivery of an event of this type that runs out of attempts is reported. The loop
 * rule: deliveries of webhook.* events (tests, and operational events themselves) are not, so two
 * failing subscriptions listening to webhook.delivery_failed cannot feed each other.
 */
export const reportsExhaustedDelivery = (eventType: string) => !isOperationalEvent(eventType) && eventType !== ('webhook.test' satisfies EventType);

interface ExhaustedDelivery {
  subscriptionId: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  attempts: number;
  httpStatus: number | null;
  error: string | null;
  attemptedAt: Date;
}

/** A delivery whose last scheduled attempt failed. */
export async function writeDeliveryFailedEvent(tx: Tx, d: ExhaustedDelivery) {
  const s = await subject(tx, d.subscriptionId);
  return writeEvent(tx, {
    type: 'webhook.delivery_failed',
    workspace: s.workspace,
    actor: null,
    aboutSubscriptionId: s.id,
    aboutBoardIds: s.boardIds,
    occurredAt: d.attemptedAt,
    data: {
      ...summary(s),
      deliveryId: d.deliveryId,
      eventId: d.eventId,
      eventType: d.eventType,
      attempts: d.attempts,
      lastAttempt: { httpStatus: d.httpStatus, error: d.error, attemptedAt: d.attemptedAt.toISOString() },
    },
  });
}
