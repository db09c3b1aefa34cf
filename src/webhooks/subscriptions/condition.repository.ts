// A person's changes of a subscription's condition from the settings (GraphQL): pause
// (receiving → paused) and disable (receiving or paused → disabled). Each is written with its
// operational event, reason `manual`, in one transaction, as the service's own pause and 410 are
// (delivery.repository.ts); resume and enable live beside those.
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
};
