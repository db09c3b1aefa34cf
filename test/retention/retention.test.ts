// Retention deletes exactly what it should: rows just outside each window go, rows just inside
// (and on the boundary) stay, unrelayed events and unread notifications stay however old, and
// the delivery log never shows a delivery without its attempts or event. A batch size of 2
// makes every purge take several batches.
import { describe, expect, it } from 'vitest';
import { prisma } from '../../src/db/db.ts';
import { newId } from '../../src/ids.ts';
import type { DeliveryStatus } from '../../src/generated/prisma/client.ts';
import { purge, type RetentionPolicy } from '../../src/retention/retention.service.ts';
import { RETENTION_TARGETS } from '../../src/retention/retention.targets.ts';
import { deliveryLogRepository } from '../../src/webhooks/log/delivery-log.repository.ts';
import { createTestWorkspace } from '../support/fixtures.ts';
import { createSubscription } from '../webhooks/fixtures.ts';

const DAY = 24 * 60 * 60 * 1000;
const SECOND = 1000;
const policy: RetentionPolicy = { webhookLogDays: 30, readNotificationDays: 30, batchSize: 2 };
const now = new Date(Math.floor(Date.now() / 1000) * 1000);
const cutoff = new Date(now.getTime() - 30 * DAY);
const at = (offsetMs: number) => new Date(cutoff.getTime() + offsetMs);

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;

async function purgeAll() {
  for (const target of RETENTION_TARGETS) await purge(target, { now, policy });
}

async function event(ws: Workspace, relayedAt: Date | null, occurredAt = relayedAt ?? at(-60 * DAY)) {
  const row = await prisma.event.create({
    data: { id: newId('evt'), workspaceId: ws.workspace.id, type: 'ticket.created', actorId: ws.admin.id, payload: {}, occurredAt, relayedAt },
  });
  return row.id;
}

/** A delivery last changed at `updatedAt`, with attempts at the given times. */
async function delivery(ws: Workspace, subscriptionId: string, status: DeliveryStatus, updatedAt: Date, attemptTimes: Date[] = [], relayedAt = at(-40 * DAY)) {
  const eventId = await event(ws, relayedAt);
  const id = newId('dlv');
  await prisma.delivery.create({ data: { id, eventId, subscriptionId, status, attemptCount: attemptTimes.length, workflowId: `delivery:${eventId}:${subscriptionId}` } });
  await prisma.$executeRaw`UPDATE "Delivery" SET "updatedAt" = ${updatedAt.toISOString()}::timestamp(3) WHERE "id" = ${id}`;
  const attempts: string[] = [];
  for (const [i, attemptedAt] of attemptTimes.entries()) {
    const attempt = await prisma.deliveryAttempt.create({
      data: {
        id: newId('att'), deliveryId: id, subscriptionId, eventId, eventType: 'ticket.created', attempt: i + 1, trigger: 'scheduled',
        status: status === 'succeeded' && i === attemptTimes.length - 1 ? 'succeeded' : 'failed', payload: '{}', attemptedAt, workflowId: 'w',
      },
    });
    attempts.push(attempt.id);
  }
  return { id, eventId, attempts };
}

const ids = (rows: { id: string | number }[]) => rows.map((r) => r.id).sort();

describe('retention', () => {
  it('purges finished deliveries with their last attempt, then old attempts, then events nothing refers to', async () => {
    const ws = await createTestWorkspace();
    const sub = await createSubscription(ws, { url: 'https://r.example.com/' });
    // Outside the window: every attempt and the last change older than the cutoff.
    await delivery(ws, sub.id, 'succeeded', at(-SECOND), [at(-DAY), at(-SECOND)]);
    await delivery(ws, sub.id, 'cancelled', at(-SECOND));
    // Inside: a newer attempt (exactly on the cutoff counts as inside), or a newer change.
    const failedOnBoundary = await delivery(ws, sub.id, 'failed', at(-SECOND), [at(-2 * DAY), at(0)]);
    const succeededRecent = await delivery(ws, sub.id, 'succeeded', at(SECOND), [at(-DAY), at(SECOND)]);
    const cancelledRecent = await delivery(ws, sub.id, 'cancelled', at(SECOND));
    // Still being worked on: kept however old, though their old attempts go.
    const held = await delivery(ws, sub.id, 'held', at(-10 * DAY), [at(-10 * DAY)]);
    const pending = await delivery(ws, sub.id, 'pending', at(-5 * DAY));
    // Events without deliveries: relayed just outside goes; just inside, unrelayed or leased stays.
    await event(ws, at(-SECOND));
    const relayedRecent = await event(ws, at(SECOND));
    const unrelayed = await event(ws, null, at(-90 * DAY));
    const leased = await event(ws, null, at(-90 * DAY));
    await prisma.event.update({ where: { id: leased }, data: { relayLeaseUntil: new Date(now.getTime() + 60 * SECOND) } });

    await purgeAll();

    const kept = [failedOnBoundary, succeededRecent, cancelledRecent, held, pending];
    expect(ids(await prisma.delivery.findMany({ where: { subscriptionId: sub.id } }))).toEqual(ids(kept));
    expect(ids(await prisma.deliveryAttempt.findMany({ where: { subscriptionId: sub.id } }))).toEqual(
      [failedOnBoundary.attempts[1], succeededRecent.attempts[1]].sort(),
    );
    expect((await prisma.event.findMany({ where: { workspaceId: ws.workspace.id } })).map((e) => e.id).sort()).toEqual(
      [...kept.map((d) => d.eventId), relayedRecent, unrelayed, leased].sort(),
    );

    // The log shows exactly the attempts left and the deliveries waiting without one.
    const log = await deliveryLogRepository.deliveryLog(sub.id, {}, 100);
    expect(log.map((r) => r.id).sort()).toEqual([failedOnBoundary.attempts[1], succeededRecent.attempts[1], cancelledRecent.id, held.id, pending.id].sort());
  });

  it('looks past events kept for their deliveries, batch after batch', async () => {
    const ws = await createTestWorkspace();
    const sub = await createSubscription(ws, { url: 'https://r.example.com/' });
    // Relayed first (so first in the purge's order) and kept: more of them than a batch holds.
    const heldEarly = [];
    for (let i = 0; i < 5; i++) heldEarly.push(await delivery(ws, sub.id, 'held', at(-DAY), [], at(-50 * DAY + i * SECOND)));
    const later = [];
    for (let i = 0; i < 5; i++) later.push(await event(ws, at(-10 * DAY + i * SECOND)));

    await purgeAll();

    expect((await prisma.event.findMany({ where: { workspaceId: ws.workspace.id } })).map((e) => e.id).sort()).toEqual(heldEarly.map((d) => d.eventId).sort());
  });

  it('purges notifications read before the window, never unread ones', async () => {
    const ws = await createTestWorkspace();
    const notification = async (createdAt: Date, readAt: Date | null) =>
      (await prisma.notification.create({ data: { workspaceId: ws.workspace.id, userId: ws.admin.id, kind: 'test', title: 't', body: 'b', createdAt, readAt } })).id;
    for (let i = 0; i < 3; i++) await notification(at(-DAY), at(-SECOND - i));
    const readOnBoundary = await notification(at(-DAY), at(0));
    const readRecent = await notification(at(-DAY), at(SECOND));
    const unreadAncient = await notification(at(-400 * DAY), null);

    await purgeAll();

    const left = await prisma.notification.findMany({ where: { workspaceId: ws.workspace.id } });
    expect(ids(left)).toEqual([readOnBoundary, readRecent, unreadAncient].sort());
  });

  it('purges expired sessions and idempotency records, keeps live ones', async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key();
    const session = async (expiresAt: Date) =>
      (await prisma.session.create({ data: { id: newId('s'), userId: ws.admin.id, csrfToken: 'c', expiresAt } })).id;
    const record = async (expiresAt: Date) =>
      (await prisma.idempotencyRecord.create({ data: { apiKeyId: key.record.id, key: newId('k'), requestHash: 'h', expiresAt } })).id;
    const offsets = { expired: -SECOND, expiring: 0, live: SECOND };
    const sessions = Object.fromEntries(await Promise.all(Object.entries(offsets).map(async ([k, o]) => [k, await session(new Date(now.getTime() + o))])));
    const records = Object.fromEntries(await Promise.all(Object.entries(offsets).map(async ([k, o]) => [k, await record(new Date(now.getTime() + o))])));

    await purgeAll();

    expect(ids(await prisma.session.findMany({ where: { userId: ws.admin.id } }))).toEqual([sessions.live]);
    expect(ids(await prisma.idempotencyRecord.findMany({ where: { apiKeyId: key.record.id } }))).toEqual([records.live]);
  });
});
