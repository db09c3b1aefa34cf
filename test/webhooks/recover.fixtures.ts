// Delivery histories for recovery tests, written directly: a delivery with attempts at chosen
// times, as its workflow would have logged them.
import { prisma } from '../../src/db/db.ts';
import { newId } from '../../src/ids.ts';
import type { DeliveryStatus } from '../../src/generated/prisma/client.ts';
import { eventWorkflowId } from '../../workflows/delivery/ids.ts';
import type { DeliveryRef } from '../../workflows/delivery/search-attributes.ts';
import type { createTestWorkspace } from '../support/fixtures.ts';
import { createDelivery } from './fixtures.ts';

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;

/**
 * A new delivery to the subscription with scheduled attempts at `attempts` (oldest first, each
 * `failed` unless said), and the delivery in `status` (`failed` unless said).
 */
export async function deliveryWithAttempts(ws: Workspace, subscriptionId: string, attempts: { at: Date; status?: 'failed' | 'succeeded' }[], status: DeliveryStatus = 'failed'): Promise<DeliveryRef> {
  const ref = await createDelivery(ws, subscriptionId);
  for (const [i, a] of attempts.entries()) {
    await prisma.deliveryAttempt.create({
      data: {
        id: newId('att'),
        deliveryId: ref.deliveryId,
        subscriptionId,
        eventId: ref.eventId,
        eventType: ref.eventType,
        attempt: i + 1,
        trigger: 'scheduled',
        status: a.status ?? 'failed',
        httpStatus: a.status === 'succeeded' ? 200 : 503,
        durationMs: 5,
        payload: '{}',
        attemptedAt: a.at,
        workflowId: eventWorkflowId(ref.eventId),
      },
    });
  }
  await prisma.delivery.update({ where: { id: ref.deliveryId }, data: { status, attemptCount: attempts.length } });
  return ref;
}

/** The attempts of a delivery made by hand (re-sends, recoveries). */
export const manualAttemptsOf = (deliveryId: string) =>
  prisma.deliveryAttempt.findMany({ where: { deliveryId, trigger: 'manual' }, orderBy: { attemptedAt: 'asc' } });
