// Rows for delivery tests, written directly (the subscription endpoints and the outbox relay
// are not what these tests are about). Each test uses its own workspace.
import { prisma } from '../../src/db/db.ts';
import { newId } from '../../src/ids.ts';
import type { EventType, JsonValue } from '../../src/events/event.envelope.ts';
import { writeEvent } from '../../src/events/event.outbox.ts';
import { generateWebhookSecret } from '../../src/webhooks/message/signing.ts';
import { openSecret, sealSecret } from '../../src/webhooks/message/secret-box.ts';
import { ROTATION_OVERLAP_MS } from '../../src/webhooks/message/signing.ts';
import { relayRepository } from '../../src/webhooks/fanout/relay.repository.ts';
import type { DeliveryRef } from '../../src/webhooks/delivery/search-attributes.ts';
import type { Client } from '@temporalio/client';
import { wakeRun } from '../../src/webhooks/delivery/wake.ts';
import { deliveryRunWorkflowId } from '../../src/webhooks/delivery/ids.ts';
import type { deliveryRunWorkflow } from '../../src/webhooks/delivery/workflows.ts';
import type { Prisma } from '../../src/generated/prisma/client.ts';
import { createTestWorkspace } from '../support/fixtures.ts';

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;

/** The row's secrets are stored sealed, as the repository stores them; the row comes back with them in plain text. */
export async function createSubscription(ws: Workspace, data: { url: string } & Partial<Prisma.WebhookSubscriptionUncheckedCreateInput>) {
  const secret = typeof data.secret === 'string' ? data.secret : generateWebhookSecret();
  const previousSecret = typeof data.previousSecret === 'string' ? data.previousSecret : null;
  const id = typeof data.id === 'string' ? data.id : newId('wh');
  const row = await prisma.webhookSubscription.create({
    data: {
      workspaceId: ws.workspace.id,
      createdById: ws.admin.id,
      events: ['ticket.created', 'ticket.state_changed'],
      ...data,
      id,
      secret: sealSecret(secret, { subscriptionId: id, column: 'secret' }),
      previousSecret: previousSecret === null ? null : sealSecret(previousSecret, { subscriptionId: id, column: 'previousSecret' }),
    },
  });
  return { ...row, secret, previousSecret };
}

/** A stored row's secrets in plain text, each opened for its place; the previous one only while it still signs (else null). */
export function openSecrets<T extends { id: string; secret: string; previousSecret: string | null; secretRotatedAt: Date | null }>(row: T, now = new Date()): T {
  const previousValid = row.previousSecret !== null && row.secretRotatedAt !== null && now.getTime() - row.secretRotatedAt.getTime() < ROTATION_OVERLAP_MS;
  return {
    ...row,
    secret: openSecret(row.secret, { subscriptionId: row.id, column: 'secret' }),
    previousSecret: previousValid ? openSecret(row.previousSecret!, { subscriptionId: row.id, column: 'previousSecret' }) : null,
  };
}

/** An outbox event, written as the ticket service writes them (its payload is the webhook envelope). */
export function createEvent(ws: Workspace, type: EventType = 'ticket.created', data: JsonValue = { id: 1, subject: 'Printer on fire' }) {
  return writeEvent(prisma, { workspace: ws.workspace, type, actor: { id: ws.admin.id, name: ws.admin.fullName }, data });
}

/**
 * The delivery of an event to a subscription, written the relay's one way (relayRepository.createDeliveries:
 * the event's order, the run's workflow id, the subscription's payload form; nothing for a paused
 * subscription at its held-delivery cap), and its row.
 */
export async function writeDelivery(eventId: string, subscriptionId: string) {
  const [{ seq }, { payload }] = await Promise.all([
    prisma.event.findUniqueOrThrow({ where: { id: eventId }, select: { seq: true } }),
    prisma.webhookSubscription.findUniqueOrThrow({ where: { id: subscriptionId }, select: { payload: true } }),
  ]);
  await relayRepository.createDeliveries([{ eventId, subscriptionId, seq, workflowId: deliveryRunWorkflowId(subscriptionId), payloadMode: payload }]);
  return prisma.delivery.findUniqueOrThrow({ where: { eventId_subscriptionId: { eventId, subscriptionId } } });
}

/** The delivery of a new event to the subscription, as the relay makes it (its deliveries then marked written). */
export async function createDelivery(ws: Workspace, subscriptionId: string, type?: EventType): Promise<DeliveryRef> {
  const event = await createEvent(ws, type);
  const delivery = await writeDelivery(event.id, subscriptionId);
  await relayRepository.markDeliveriesWritten([event.id]);
  return { deliveryId: delivery.id, eventId: event.id, subscriptionId, eventType: event.type, workspaceId: ws.workspace.id };
}

/** Attempts of one new delivery (of an event of `type`) to the subscription: at the given times, with the given outcomes and durations; the delivery ends as its last attempt did. */
export async function seedAttempts(ws: Workspace, subscriptionId: string, attempts: [Date | string, 'succeeded' | 'failed', number][], type?: EventType) {
  const ref = await createDelivery(ws, subscriptionId, type);
  await prisma.deliveryAttempt.createMany({
    data: attempts.map(([at, status, durationMs], i) => ({
      id: newId('att'),
      deliveryId: ref.deliveryId,
      subscriptionId,
      eventId: ref.eventId,
      eventType: ref.eventType,
      attempt: i + 1,
      trigger: 'scheduled' as const,
      status,
      httpStatus: status === 'succeeded' ? 200 : 500,
      durationMs,
      payload: '{}',
      attemptedAt: new Date(at),
      workflowId: deliveryRunWorkflowId(subscriptionId),
    })),
  });
  // The delivery is over, as its attempts say: no run or sweep of the service under test takes it up again.
  const last = attempts.at(-1)?.[1] ?? 'succeeded';
  await prisma.delivery.update({ where: { id: ref.deliveryId }, data: { status: last, attemptCount: attempts.length, scheduledAttempts: attempts.length } });
  return ref;
}

export const attemptsOf = (deliveryId: string) => prisma.deliveryAttempt.findMany({ where: { deliveryId }, orderBy: [{ attempt: 'asc' }, { attemptedAt: 'asc' }] });
export const deliveryRow = (deliveryId: string) => prisma.delivery.findUniqueOrThrow({ where: { id: deliveryId } });
export const updateSubscription = (id: string, data: Prisma.WebhookSubscriptionUpdateInput) => prisma.webhookSubscription.update({ where: { id }, data });
export const subscriptionRow = (id: string) => prisma.webhookSubscription.findUniqueOrThrow({ where: { id } });
export const notificationsOf = (workspaceId: number) => prisma.notification.findMany({ where: { workspaceId }, orderBy: { userId: 'asc' } });
export const addUser = (ws: Workspace, input: { isAdmin: boolean; deactivated?: boolean; email?: string }) =>
  prisma.user.create({
    data: {
      workspaceId: ws.workspace.id,
      userName: `u-${newId('u').slice(-8).toLowerCase()}`,
      fullName: input.isAdmin ? 'Second Admin' : 'An Agent',
      email: input.email,
      roleId: input.isAdmin ? ws.roles.admin.id : ws.roles.agent.id,
      isAdmin: input.isAdmin,
      deactivatedAt: input.deactivated ? new Date() : null,
    },
  });

/** Wakes the delivery's subscription's run (starting it when idle), as the relay does after writing the delivery. */
export function wakeRunOf(client: Client, taskQueue: string, ref: DeliveryRef): Promise<string> {
  return wakeRun(client, taskQueue, { subscriptionId: ref.subscriptionId, workspaceId: ref.workspaceId });
}

/** Waits for the subscription's run to end (through any continue-as-new), then reads the run's summary. */
export function runResult(client: Client, subscriptionId: string) {
  return client.workflow.getHandle<typeof deliveryRunWorkflow>(deliveryRunWorkflowId(subscriptionId)).result();
}

/** A delivery's outcome once its subscription's run has ended: its status and the number of its last scheduled attempt. */
export async function deliveryResult(client: Client, ref: DeliveryRef): Promise<{ status: string; attempt: number }> {
  await runResult(client, ref.subscriptionId);
  const row = await deliveryRow(ref.deliveryId);
  return { status: row.status, attempt: row.scheduledAttempts };
}
