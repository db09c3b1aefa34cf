// A person's changes of a subscription's condition: pause (receiving → paused), disable (receiving
// or paused → disabled), resume (paused → receiving) and enable (disabled → receiving). Each is
// written with its operational event, reason `manual`, in one transaction, as the service's own
// pause and 410 are (../delivery/delivery.repository.ts recordAttempt).
import { prisma } from '../../db/db.ts';
import type { EventActor } from '../../events/event.envelope.ts';
import { writeConditionEvent } from '../delivery/operational-events.ts';
import type { AuditWrite } from '../../audit/audit.writer.ts';

export const conditionRepository = {
  /**
   * receiving → paused: what waits unclaimed is held at once (as the delivery run's next claim
   * would do), attempts already in flight finish. False when it was not receiving.
   */
  pause(subscriptionId: string, actor: EventActor, audit?: AuditWrite): Promise<boolean> {
    return prisma.$transaction(async (tx) => {
      const at = new Date();
      const { count } = await tx.webhookSubscription.updateMany({
        where: { id: subscriptionId, condition: 'receiving', deletedAt: null },
        data: { condition: 'paused', pausedAt: at, conditionReason: 'manual' },
      });
      if (count === 1) {
        await tx.delivery.updateMany({ where: { subscriptionId, status: 'pending', claim: null }, data: { status: 'held', nextAttemptAt: null } });
        await writeConditionEvent(tx, 'webhook.paused', subscriptionId, 'manual', actor, at);
        await audit?.(tx, undefined);
      }
      return count === 1;
    });
  },

  /** receiving or paused → disabled: what waits (pending or held) is cancelled, as after a 410. False when it was disabled already. */
  disable(subscriptionId: string, actor: EventActor, audit?: AuditWrite): Promise<boolean> {
    return prisma.$transaction(async (tx) => {
      const at = new Date();
      const { count } = await tx.webhookSubscription.updateMany({
        where: { id: subscriptionId, condition: { not: 'disabled' }, deletedAt: null },
        data: { condition: 'disabled', disabledAt: at, pausedAt: null, conditionReason: 'manual' },
      });
      if (count === 1) {
        await tx.delivery.updateMany({ where: { subscriptionId, status: { in: ['pending', 'held'] }, claim: null }, data: { status: 'cancelled', nextAttemptAt: null } });
        await writeConditionEvent(tx, 'webhook.disabled', subscriptionId, 'manual', actor, at);
        await audit?.(tx, undefined);
      }
      return count === 1;
    });
  },

  /** paused → receiving, with a fresh failure count, and its webhook.resumed event. False when the subscription was not paused. */
  resume(subscriptionId: string, actor: EventActor | null = null, audit?: AuditWrite): Promise<boolean> {
    return prisma.$transaction(async (tx) => {
      const { count } = await tx.webhookSubscription.updateMany({
        where: { id: subscriptionId, condition: 'paused', deletedAt: null },
        data: { condition: 'receiving', consecutiveFailures: 0, pausedAt: null, conditionReason: null },
      });
      if (count === 1) {
        await writeConditionEvent(tx, 'webhook.resumed', subscriptionId, 'manual', actor, new Date());
        // The held deliveries are the run's queue again, due now, in event order (their attempts left as they were).
        await tx.delivery.updateMany({ where: { subscriptionId, status: 'held' }, data: { status: 'pending', nextAttemptAt: null } });
        await audit?.(tx, undefined);
      }
      return count === 1;
    });
  },

  /** disabled → receiving with a fresh failure count, and its webhook.enabled event; false when it was not disabled. */
  enable(id: string, actor: EventActor | null = null, audit?: AuditWrite): Promise<boolean> {
    return prisma.$transaction(async (tx) => {
      const { count } = await tx.webhookSubscription.updateMany({
        where: { id, condition: 'disabled', deletedAt: null },
        data: { condition: 'receiving', consecutiveFailures: 0, disabledAt: null, conditionReason: null },
      });
      if (count === 1) await writeConditionEvent(tx, 'webhook.enabled', id, 'manual', actor, new Date());
      if (count === 1) await audit?.(tx, undefined);
      return count === 1;
    });
  },
};
