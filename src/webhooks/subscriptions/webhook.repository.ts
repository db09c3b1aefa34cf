// Data access of webhook subscriptions: their rows (without the secrets' plain text), saving,
// changing and deleting them, rotating the secret, and queuing a test event.
import { prisma } from '../../db/db.ts';
import { newId } from '../../ids.ts';
import { Prisma, type WebhookSubscription } from '../../generated/prisma/client.ts';
import { writeEvent, type WriteEventInput } from '../../events/event.outbox.ts';
import { openSecret, sealSecret } from '../message/secret-box.ts';
import { sealCredentials } from '../message/destinations/stored.ts';
import type { DestinationCredentials, DestinationType } from '../message/destinations/settings.ts';
import { waitingWork } from '../fanout/relay.repository.ts';
import type { AuditWrite } from '../../audit/audit.writer.ts';

const live = { deletedAt: null } as const;

interface SubscriptionData {
  url: string;
  events: string[];
  boardIds: string[];
  fields: string[];
  description: string;
  maxInFlight?: number;
  ratePerSecond?: number | null;
  ordering?: 'concurrent' | 'strict';
  /** null: back to the default schedule (retry-schedule.ts). */
  retrySchedule?: { delaysSeconds: number[] } | null;
  payload?: 'full' | 'thin';
  /** Where deliveries go: https (settings null, `url` the endpoint) or a broker (`url` its address in URI form). */
  destination?: { type: DestinationType; settings: Record<string, unknown> | null; credentials: DestinationCredentials | null };
}

/** What an update may also reset: a new maxInFlight starts the bound in force afresh (what AIMD made of the old one goes). */
type SubscriptionUpdate = Partial<SubscriptionData> & { effectiveInFlight?: null };

/**
 * A subscription as the API reads it: without its signing secrets, which stay sealed in the table
 * (secret-box.ts). Only the answers that issue one carry it, and only deliveries open them: a
 * process that lacks a key (a rolling change of keys) still lists and reads every subscription.
 */
export type Subscription = Omit<WebhookSubscription, 'secret' | 'previousSecret' | 'destinationCredentials'>;
const sealed = { secret: true, previousSecret: true, destinationCredentials: true } as const;

/** The columns of a destination, its credentials sealed for the row. */
function destinationColumns(id: string, d: NonNullable<SubscriptionData['destination']>) {
  return { destinationType: d.type, destination: (d.settings as Prisma.InputJsonObject | null) ?? Prisma.DbNull, destinationCredentials: sealCredentials(id, d.credentials) };
}

export const webhookRepository = {
  async listForWorkspace(workspaceId: number): Promise<Subscription[]> {
    return prisma.webhookSubscription.findMany({ where: { workspaceId, ...live }, orderBy: { id: 'desc' }, omit: sealed });
  },

  async find(workspaceId: number, id: string): Promise<Subscription | null> {
    return prisma.webhookSubscription.findFirst({ where: { id, workspaceId, ...live }, omit: sealed });
  },

  /**
   * Creates a subscription under a lock on the workspace's row (and, for an API key, the key's),
   * so that parallel requests cannot together pass the workspace's limit or the key's. Says which
   * limit is reached instead when one is.
   */
  create(
    input: SubscriptionData & { workspaceId: number; createdById: number; apiKeyId: number | null; secret: string; limit: number | null; workspaceLimit: number },
    audit?: AuditWrite<Subscription>,
  ): Promise<Subscription | { limitReached: 'workspace' | 'apiKey' }> {
    return prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 FROM "Workspace" WHERE "id" = ${input.workspaceId} FOR UPDATE`;
      if ((await tx.webhookSubscription.count({ where: { workspaceId: input.workspaceId, ...live } })) >= input.workspaceLimit) return { limitReached: 'workspace' as const };
      if (input.apiKeyId !== null && input.limit !== null) {
        await tx.$queryRaw`SELECT 1 FROM "ApiKey" WHERE "id" = ${input.apiKeyId} FOR UPDATE`;
        const count = await tx.webhookSubscription.count({ where: { apiKeyId: input.apiKeyId, ...live } });
        if (count >= input.limit) return { limitReached: 'apiKey' as const };
      }
      const id = newId('wh');
      const created = await tx.webhookSubscription.create({
        data: {
          id,
          workspaceId: input.workspaceId,
          apiKeyId: input.apiKeyId,
          createdById: input.createdById,
          url: input.url,
          events: input.events,
          boardIds: input.boardIds,
          fields: input.fields,
          description: input.description,
          ...(input.maxInFlight !== undefined ? { maxInFlight: input.maxInFlight } : {}),
          ...(input.ratePerSecond != null ? { ratePerSecond: input.ratePerSecond } : {}),
          ...(input.ordering !== undefined ? { ordering: input.ordering } : {}),
          ...(input.retrySchedule ? { retrySchedule: input.retrySchedule } : {}),
          ...(input.payload !== undefined ? { payload: input.payload } : {}),
          secret: sealSecret(input.secret, { subscriptionId: id, column: 'secret' }),
          ...(input.destination ? destinationColumns(id, input.destination) : {}),
        },
        omit: sealed,
      });
      await audit?.(tx, created);
      return created;
    });
  },

  async existingBoardIds(workspaceId: number, ids: string[]): Promise<Set<string>> {
    const rows = await prisma.board.findMany({ where: { workspaceId, id: { in: ids } }, select: { id: true } });
    return new Set(rows.map((r) => r.id));
  },

  /** Which of these are ids of custom fields of the workspace's boards. */
  async existingFieldIds(workspaceId: number, ids: string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await prisma.boardField.findMany({ where: { id: { in: ids }, board: { workspaceId } }, select: { id: true } });
    return new Set(rows.map((r) => r.id));
  },

  async update(id: string, data: SubscriptionUpdate, audit?: AuditWrite<Subscription>) {
    const { retrySchedule, destination, ...rest } = data;
    const schedule = retrySchedule === undefined ? {} : { retrySchedule: retrySchedule ?? Prisma.DbNull };
    const target = destination ? destinationColumns(id, destination) : {};
    return prisma.$transaction(async (tx) => {
      const updated = await tx.webhookSubscription.update({ where: { id }, data: { ...rest, ...schedule, ...target }, omit: sealed });
      await audit?.(tx, updated);
      return updated;
    });
  },

  /** Soft delete (the log stays for its 30 days); what was still to be sent is cancelled. */
  delete(id: string, at: Date, audit?: AuditWrite) {
    return prisma.$transaction(async (tx) => {
      await tx.webhookSubscription.update({ where: { id }, data: { deletedAt: at } });
      await tx.delivery.updateMany({ where: { subscriptionId: id, status: { in: ['pending', 'held'] } }, data: { status: 'cancelled', nextAttemptAt: null } });
      await audit?.(tx, undefined);
    });
  },

  /** The new secret signs from now on; the old one signs too for 24 hours. */
  rotateSecret(id: string, secret: string, at: Date, audit?: AuditWrite) {
    return prisma.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<{ secret: string }[]>`SELECT "secret" FROM "WebhookSubscription" WHERE "id" = ${id} FOR UPDATE`;
      // The current secret becomes the previous one (sealed again for that column); it replaces (clears) the one before it.
      const previous = openSecret(row.secret, { subscriptionId: id, column: 'secret' });
      const updated = await tx.webhookSubscription.update({
        where: { id },
        data: { secret: sealSecret(secret, { subscriptionId: id, column: 'secret' }), previousSecret: sealSecret(previous, { subscriptionId: id, column: 'previousSecret' }), secretRotatedAt: at },
        omit: sealed,
      });
      await audit?.(tx, undefined);
      return updated;
    });
  },

  /**
   * Queues a webhook.test event through the outbox, as every change does. While the subscription
   * is paused, under a lock on its row (parallel requests cannot together pass the cap): null
   * when the deliveries it holds, with the test events on their way to it, reach `heldCap`.
   */
  queueTestEvent(subscriptionId: string, heldCap: number, input: WriteEventInput, audit?: AuditWrite<{ id: string }>) {
    return prisma.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<{ condition: string }[]>`
        SELECT "condition"::text AS "condition" FROM "WebhookSubscription" WHERE "id" = ${subscriptionId} FOR UPDATE`;
      if (row?.condition === 'paused' && (await waitingWork(tx, subscriptionId, heldCap)) >= heldCap) return null;
      const envelope = await writeEvent(tx, input);
      await audit?.(tx, envelope);
      return envelope;
    });
  },
};
