// The outbox writer: an Event row written with the caller's transaction client, so the event
// exists exactly when the change it describes is committed (none lost, none for a rolled-back
// change). The webhook relay reads these rows in `seq` order. The one INSERT of an Event row is
// `eventInsertSql`: `writeEvent` runs it, and ticket creation puts it into its single statement.
import { Prisma } from '../generated/prisma/client.ts';
import { newId } from '../ids.ts';
import { buildEventEnvelope, type EnvelopeInput, type EventEnvelope } from './event.envelope.ts';
import { currentTraceparent } from '../tracing/tracing.ts';

export interface WriteEventInput extends Omit<EnvelopeInput, 'id' | 'occurredAt' | 'workspace'> {
  workspace: { id: number; domain: string };
  boardId?: string | null;
  ticketId?: number | null;
  /** webhook.test: the one subscription it goes to. */
  targetSubscriptionId?: string | null;
  /** An operational event: the subscription it is about, which never receives it. */
  aboutSubscriptionId?: string | null;
  /** An operational event: that subscription's board filter now (who may receive and see the event). */
  aboutBoardIds?: string[];
  occurredAt?: Date;
}

/**
 * The INSERT of one Event row. `ticket: 'created'`: the statement's `ticket` CTE has just inserted
 * the ticket, whose id becomes the row's ticketId and the payload's `data.id` (ticket creation is
 * one statement; the id is the sequence's). Traces on: the deliveries of this event continue the
 * request's trace (outbox-relay.ts).
 */
export function eventInsertSql(envelope: EventEnvelope, row: {
  workspaceId: number;
  boardId: string | null;
  ticketId: number | null | 'created';
  targetSubscriptionId: string | null;
  aboutSubscriptionId?: string | null;
  aboutBoardIds?: string[];
  occurredAt: Date;
}): Prisma.Sql {
  const fromTicket = row.ticketId === 'created';
  const ticketId = fromTicket ? Prisma.sql`"id"` : Prisma.sql`${row.ticketId}::int`;
  const payload = fromTicket
    ? Prisma.sql`jsonb_set(${JSON.stringify(envelope)}::jsonb, '{data,id}', to_jsonb("id"))`
    : Prisma.sql`${JSON.stringify(envelope)}::jsonb`;
  return Prisma.sql`
    INSERT INTO "Event" ("id", "workspaceId", "type", "actorId", "boardId", "ticketId", "targetSubscriptionId", "aboutSubscriptionId", "aboutBoardIds", "payload", "occurredAt", "traceparent")
    SELECT ${envelope.id}, ${row.workspaceId}::int, ${envelope.type}, ${envelope.actor?.id ?? null}::int, ${row.boardId}::text, ${ticketId}, ${row.targetSubscriptionId}::text,
           ${row.aboutSubscriptionId ?? null}::text, ${row.aboutBoardIds ?? []}::text[],
           ${payload}, ${row.occurredAt.toISOString()}::timestamp(3), ${currentTraceparent()}::text
    ${fromTicket ? Prisma.sql`FROM ticket` : Prisma.empty}`;
}

export async function writeEvent(
  tx: Prisma.TransactionClient,
  input: WriteEventInput,
  /** Another write of the same change as a data-modifying CTE (`name AS (INSERT …)`), given the event's time: one statement, one roundtrip, for both. */
  alongside?: (occurredAt: Date) => Prisma.Sql,
): Promise<EventEnvelope> {
  const occurredAt = input.occurredAt ?? new Date();
  const envelope = buildEventEnvelope({ ...input, id: newId('evt'), occurredAt });
  const insert = eventInsertSql(envelope, {
    workspaceId: input.workspace.id,
    boardId: input.boardId ?? null,
    ticketId: input.ticketId ?? null,
    targetSubscriptionId: input.targetSubscriptionId ?? null,
    aboutSubscriptionId: input.aboutSubscriptionId ?? null,
    aboutBoardIds: input.aboutBoardIds ?? [],
    occurredAt,
  });
  await tx.$executeRaw(alongside ? Prisma.sql`WITH ${alongside(occurredAt)} ${insert}` : insert);
  return envelope;
}
