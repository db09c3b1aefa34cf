// The ONE ticket representation (docs/api-contract.md, "Resources"): every ticket response of REST and GraphQL and
// the `data` of every webhook event are made by toTicketRepresentation, so they cannot drift.
import type { Channel, Prisma, StateCategory, Ticket } from '../generated/prisma/client.ts';
import type { z } from 'zod';
import type { EventActor, FieldChange, JsonValue } from '../events/event.envelope.ts';
import type { commentSchema, Same, ticketSchema } from '../events/event.schemas.ts';

export interface FieldValue {
  fieldId: string;
  value: JsonValue;
}

export interface TicketRepresentation {
  id: number;
  boardId: string;
  subject: string;
  description: string;
  state: { id: string; name: string; category: StateCategory };
  priority: string;
  requester: { email: string };
  fields: FieldValue[];
  channel: Channel;
  createdBy: EventActor;
  /** 1 when created, +1 with each change: the ETag of ticket answers; newer events carry higher versions. */
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** What a ticket row must be loaded with to be represented. */
export const ticketInclude = {
  state: { select: { id: true, name: true, category: true } },
  createdBy: { select: { id: true, fullName: true } },
} as const satisfies Prisma.TicketInclude;

type TicketRow = Ticket & {
  state: { id: string; name: string; category: StateCategory };
  createdBy: { id: number; fullName: string };
};

export const toActor = (user: { id: number; fullName: string }): EventActor => ({ id: user.id, name: user.fullName });

export function toTicketRepresentation(row: TicketRow): TicketRepresentation {
  return {
    id: row.id,
    boardId: row.boardId,
    subject: row.subject,
    description: row.description,
    state: { id: row.state.id, name: row.state.name, category: row.state.category },
    priority: row.priority,
    requester: { email: row.requesterEmail },
    fields: row.fields as unknown as FieldValue[],
    channel: row.channel,
    createdBy: toActor(row.createdBy),
    version: row.version,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export interface CommentRepresentation {
  id: number;
  ticketId: number;
  body: string;
  public: boolean;
  channel: Channel;
  author: EventActor;
  createdAt: string;
}

export const commentInclude = { author: { select: { id: true, fullName: true } } } as const satisfies Prisma.CommentInclude;

export function toCommentRepresentation(row: Prisma.CommentGetPayload<{ include: typeof commentInclude }>): CommentRepresentation {
  return {
    id: row.id,
    ticketId: row.ticketId,
    body: row.body,
    public: row.public,
    channel: row.channel,
    author: toActor(row.author),
    createdAt: row.createdAt.toISOString(),
  };
}

export const HISTORY_ACTIONS = ['created', 'updated', 'state_changed', 'comment_added'] as const;
export type HistoryAction = (typeof HISTORY_ACTIONS)[number];

export interface HistoryEntryRepresentation {
  id: number;
  ticketId: number;
  action: HistoryAction;
  actor: EventActor;
  channel: Channel;
  changes: FieldChange[];
  createdAt: string;
}

export const historyInclude = { actor: { select: { id: true, fullName: true } } } as const satisfies Prisma.TicketHistoryEntryInclude;

export function toHistoryEntryRepresentation(row: Prisma.TicketHistoryEntryGetPayload<{ include: typeof historyInclude }>): HistoryEntryRepresentation {
  return {
    id: row.id,
    ticketId: row.ticketId,
    action: row.action as HistoryAction,
    actor: toActor(row.actor),
    channel: row.channel,
    changes: row.changes as unknown as FieldChange[],
    createdAt: row.createdAt.toISOString(),
  };
}

// The event schemas (the webhooks section of the OpenAPI document) describe exactly the
// representations built here: a compile error otherwise.
true satisfies Same<z.infer<typeof ticketSchema>, TicketRepresentation>;
true satisfies Same<z.infer<typeof commentSchema>, CommentRepresentation>;
