// Delivery histories for recovery tests, written directly: a delivery with attempts at chosen
// times, as its workflow would have logged them.
import { prisma } from '../../src/db/db.ts';
import type { DeliveryStatus } from '../../src/generated/prisma/client.ts';
import type { DeliveryRef } from '../../src/webhooks/delivery/search-attributes.ts';
import type { createTestWorkspace } from '../support/fixtures.ts';
import { seedAttempts } from './fixtures.ts';

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;

/**
 * A new delivery to the subscription with scheduled attempts at `attempts` (oldest first, each
 * `failed` unless said), and the delivery in `status` (`failed` unless said).
 */
export async function deliveryWithAttempts(ws: Workspace, subscriptionId: string, attempts: { at: Date; status?: 'failed' | 'succeeded' }[], status: DeliveryStatus = 'failed'): Promise<DeliveryRef> {
  const ref = await seedAttempts(ws, subscriptionId, attempts.map((a) => [a.at, a.status ?? 'failed', 5]));
  await prisma.delivery.update({ where: { id: ref.deliveryId }, data: { status, attemptCount: attempts.length } });
  return ref;
}

/** The attempts of a delivery made by hand (re-sends, recoveries). */
export const manualAttemptsOf = (deliveryId: string) =>
  prisma.deliveryAttempt.findMany({ where: { deliveryId, trigger: 'manual' }, orderBy: { attemptedAt: 'asc' } });
