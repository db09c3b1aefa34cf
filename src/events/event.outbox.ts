// The outbox writer: an Event row written with the caller's transaction client, so the event
// exists exactly when the change it describes is committed (none lost, none for a rolled-back
// change). The webhook relay reads these rows in `seq` order.
import type { Prisma } from '../generated/prisma/client.ts';
import { newId } from '../ids.ts';
import { buildEventEnvelope, type EnvelopeInput, type EventEnvelope } from './event.envelope.ts';
import { currentTraceparent } from '../tracing/tracing.ts';

export interface WriteEventInput extends Omit<EnvelopeInput, 'id' | 'occurredAt' | 'workspace'> {
  workspace: { id: number; domain: string };
  boardId?: string | null;
  ticketId?: number | null;
  /** webhook.test: the one subscription it goes to. */
  targetSubscriptionId?: string | null;
  occurredAt?: Date;
}

export async function writeEvent(tx: Prisma.TransactionClient, input: WriteEventInput): Promise<EventEnvelope> {
  const occurredAt = input.occurredAt ?? new Date();
  const envelope = buildEventEnvelope({ ...input, id: newId('evt'), occurredAt });
  await tx.event.create({
    data: {
      id: envelope.id,
      workspaceId: input.workspace.id,
      type: envelope.type,
      actorId: envelope.actor.id,
      boardId: input.boardId ?? null,
      ticketId: input.ticketId ?? null,
      targetSubscriptionId: input.targetSubscriptionId ?? null,
      payload: envelope as unknown as Prisma.InputJsonObject,
      occurredAt,
      // Traces on: the deliveries of this event continue the request's trace (outbox-relay.ts).
      traceparent: currentTraceparent(),
    },
    select: { id: true },
  });
  return envelope;
}
