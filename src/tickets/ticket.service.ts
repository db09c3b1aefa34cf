// The rules of tickets: who sees and changes what, validation against the ticket's board, and
// attribution. Every change is written atomically with its history entry, its notifications and
// its outbox events (one transaction, or for a new ticket one statement), so either all of them
// exist or none.
import { AppError, type FieldError } from '../errors/errors.ts';
import { canSeeBoard, visibleBoardFilter, type Principal } from '../access/principal.ts';
import type { Channel } from '../generated/prisma/client.ts';
import { buildEventEnvelope, type FieldChange, type JsonValue } from '../events/event.envelope.ts';
import { writeEvent } from '../events/event.outbox.ts';
import { newId } from '../ids.ts';
import type { IdempotencyClaim } from '../idempotency/idempotency.service.ts';
import { boardService } from '../boards/board.service.ts';
import type { BoardWithRules } from '../boards/board.repository.ts';
import {
  commentInput,
  createTicketInput,
  parseInput,
  ticketListFilter,
  updateTicketInput,
} from './ticket.inputs.ts';
import { pageById, type ConnectionArgs } from '../paging/page-by-key.ts';
import type { PageHold } from '../paging/page-budget.ts';
import { applyFields, fieldChanges } from './ticket.fields.ts';
import {
  toActor,
  toCommentRepresentation,
  toHistoryEntryRepresentation,
  toTicketRepresentation,
  type FieldValue,
  type TicketRepresentation,
} from './ticket.representation.ts';
import { ticketRepository, type TicketScope, type TicketWrites } from './ticket.repository.ts';

// Built once: zod compiles a schema on its first parse, which a schema made per call repeats every time.
const listFilterArgs = ticketListFilter.pick({ boardId: true, state: true });

/** Versions an If-Match may list (RFC 9110 allows a list; no client needs many). */
const MAX_IF_VERSIONS = 20;

const scopeOf = (p: Principal): TicketScope => ({ workspaceId: p.workspace.id, boardIds: visibleBoardFilter(p.role).id?.in ?? null });

/** API keys act through the API; people through the web app (the settings UI's GraphQL). */
const channelOf = (p: Principal): Channel => (p.kind === 'apiKey' ? 'api' : 'web');

const notFound = (id: number) => new AppError('not_found', `No ticket ${id}`);

/** The scope lets a key ask; the role, as for a person with it, decides whether it may change tickets. */
function requireWriteRole(p: Principal) {
  if (!p.role.isAdmin && !p.role.permissions.has('tickets.write')) {
    throw new AppError('forbidden', `The role ${p.role.name} does not allow changing tickets`);
  }
}

const invalid = (detail: string, errors: FieldError[]) => new AppError('validation_failed', detail, { errors });

/** GraphQL's DateTime takes any JS date; PostgreSQL's timestamps do not reach that far. */
function checkTimes(times: Record<string, Date | null | undefined>) {
  const errors = Object.entries(times)
    .filter(([, d]) => d && (d.getUTCFullYear() < 1 || d.getUTCFullYear() > 9999))
    .map(([name]) => ({ path: `/${name}`, message: 'must be a time between the years 1 and 9999' }));
  if (errors.length) throw invalid('A time is out of range', errors);
}

function checkPriority(board: BoardWithRules, priority: string, errors: FieldError[]) {
  if (!board.priorities.includes(priority)) {
    errors.push({ path: '/priority', message: `must be one of the board's priorities: ${board.priorities.join(', ')}` });
  }
}

export interface ActivityRow {
  actor: { id: number; name: string };
  actorKind: 'human' | 'service';
  channel: Channel;
  ticketsCreated: number;
  ticketsChanged: number;
  changes: number;
}

export const ticketService = {
  async get(p: Principal, id: number): Promise<TicketRepresentation> {
    const row = await ticketRepository.findTicket(scopeOf(p), id);
    if (!row) throw notFound(id);
    return toTicketRepresentation(row);
  },

  /** Newest first (by id); filters combine. A board the role does not see simply yields nothing. */
  async list(p: Principal, filter: { boardId?: string | null; state?: string | null; updatedSince?: Date | null }, args: ConnectionArgs, hold?: PageHold) {
    const f = parseInput(listFilterArgs, { boardId: filter.boardId ?? undefined, state: filter.state ?? undefined }, 'A filter is not valid');
    checkTimes({ updatedSince: filter.updatedSince });
    const scope = scopeOf(p);
    const stateIds = f.state === undefined ? undefined : await ticketRepository.stateIdsFor(scope.workspaceId, f.state);
    const listFilter = { boardId: f.boardId, stateIds, updatedSince: filter.updatedSince ?? undefined };
    return pageById(args, true, (page) => ticketRepository.listTicketPage(scope, page), {
      sizes: (page) => ticketRepository.listTicketSizes(scope, listFilter, page),
      hold,
    });
  },

  /**
   * With `claim` (the request's Idempotency-Key), the answer is stored in the ticket's own statement.
   * With `writes` (a bulk job's item), the ticket is written in the caller's transaction.
   */
  async create(p: Principal, raw: unknown, claim?: IdempotencyClaim, writes?: TicketWrites): Promise<TicketRepresentation> {
    requireWriteRole(p);
    const input = parseInput(createTicketInput, raw, 'The ticket did not pass validation');
    const board = canSeeBoard(p.role, input.boardId) ? await boardService.rules(p.workspace.id, input.boardId) : null;
    if (!board) throw invalid('The board does not exist', [{ path: '/boardId', message: 'is not a board of this workspace' }]);
    const errors: FieldError[] = [];
    if (board.archivedAt) errors.push({ path: '/boardId', message: 'is an archived board: it takes no new tickets' });
    const priority = input.priority ?? board.priorities[0] ?? '';
    if (input.priority !== undefined) checkPriority(board, priority, errors);
    const fields = applyFields(board, input.fields, [], true, errors);
    const initial = board.states.find((s) => s.isInitial) ?? board.states[0];
    if (!initial) errors.push({ path: '/boardId', message: 'the board has no states' });
    if (errors.length) throw invalid('The ticket does not fit its board', errors);

    const actor = toActor(p.user);
    const channel = channelOf(p);
    const now = new Date();
    const row = {
      workspaceId: p.workspace.id,
      boardId: board.id,
      subject: input.subject,
      description: input.description,
      requesterEmail: input.requesterEmail,
      priority,
      stateId: initial.id,
      fields,
      channel,
      createdById: p.user.id,
      version: 1,
      createdAt: now,
      updatedAt: now,
    };
    // The id is the sequence's, taken by the inserting statement, which also sets it into the
    // event's copy of this representation and into the stored answer.
    const ticket = toTicketRepresentation({ ...row, id: 0, fields: fields as unknown as JsonValue[], state: initial, createdBy: p.user });
    const created: Parameters<typeof ticketRepository.insertCreatedTicket>[0] = {
      ...row,
      notice: {
        kind: 'ticket.created',
        title: ['New ticket #', `: ${row.subject}`],
        body: [`${actor.name} created ticket #`, ` on ${board.name} (${channel === 'api' ? 'through the API' : 'in the web app'})`],
        link: ['/tickets/', ''],
        data: { boardId: board.id, actor: { id: actor.id, name: actor.name } },
      },
      event: buildEventEnvelope({ id: newId('evt'), type: 'ticket.created', occurredAt: now, workspace: p.workspace, actor, data: ticket as unknown as JsonValue }),
      idempotency: claim && { recordId: claim.recordId, status: claim.successStatus },
    };
    const id = writes ? await writes((tx) => ticketRepository.insertCreatedTicket(created, tx)) : await ticketRepository.insertCreatedTicket(created);
    if (claim) claim.completed = true;
    return { ...ticket, id };
  },

  /**
   * Changes subject, description, priority, state and custom fields. Other fields change in a
   * ticket.updated event (a list of changes), the state in a ticket.state_changed event; a
   * PATCH doing both writes both. Nothing that does not change is recorded. With `writes` (a bulk
   * job's item), the change is made in the caller's transaction.
   */
  async update(p: Principal, id: number, raw: unknown, ifVersion?: readonly number[] | null, writes?: TicketWrites): Promise<TicketRepresentation> {
    requireWriteRole(p);
    const input = parseInput(updateTicketInput, raw, 'The change did not pass validation');
    if (ifVersion && ifVersion.length > MAX_IF_VERSIONS) throw invalid('Too many versions', [{ path: '/ifVersion', message: `at most ${MAX_IF_VERSIONS}` }]);
    const actor = toActor(p.user);
    const channel = channelOf(p);
    return (writes ?? ticketRepository.transaction)(async (tx) => {
      const current = await ticketRepository.lockTicket(tx, scopeOf(p), id);
      if (!current) throw notFound(id);
      // Checked on the locked row, so no other change can slip in between the check and this one.
      if (ifVersion && !ifVersion.includes(current.version)) {
        throw new AppError('precondition_failed', `The ticket changed meanwhile: it is at version ${current.version}`);
      }
      const board = current.board;
      const errors: FieldError[] = [];
      const data: Parameters<typeof ticketRepository.updateTicket>[2] = {};
      const changes: FieldChange[] = [];
      for (const key of ['subject', 'description', 'priority'] as const) {
        const value = input[key];
        if (value === undefined || value === current[key]) continue;
        if (key === 'priority') checkPriority(board, value, errors);
        data[key] = value;
        changes.push({ field: key, oldValue: current[key], newValue: value });
      }
      let stateChange: FieldChange | null = null;
      let newState = current.state;
      if (input.state !== undefined) {
        const state = board.states.find((s) => s.id === input.state) ?? board.states.find((s) => s.name === input.state);
        if (!state) errors.push({ path: '/state', message: `is not a state of board ${board.id}` });
        else if (state.id !== current.stateId) {
          data.stateId = state.id;
          stateChange = { field: 'state', oldValue: current.state.name, newValue: state.name };
          newState = state;
        }
      }
      if (input.fields) {
        const before = current.fields as unknown as FieldValue[];
        const after = applyFields(board, input.fields, before, false, errors);
        const changed = fieldChanges(before, after);
        if (changed.length) {
          data.fields = after;
          changes.push(...changed);
        }
      }
      if (errors.length) throw invalid('The change does not fit the ticket’s board', errors);
      if (!changes.length && !stateChange) return toTicketRepresentation(current);

      // Its state is the board's (looked up above) and its creator does not change: no reads after the update.
      const ticket = toTicketRepresentation({ ...(await ticketRepository.updateTicket(tx, id, data)), state: newState, createdBy: current.createdBy });
      const event = { workspace: p.workspace, actor, boardId: board.id, ticketId: id, data: ticket as unknown as JsonValue };
      // Each history entry is written in its event's statement.
      if (changes.length) {
        const history = { ticketId: id, actorId: actor.id, channel, action: 'updated' as const, changes };
        await writeEvent(tx, { ...event, type: 'ticket.updated', changes }, (at) => ticketRepository.historyCte(history, at));
      }
      if (stateChange) {
        const history = { ticketId: id, actorId: actor.id, channel, action: 'state_changed' as const, changes: [stateChange] };
        await writeEvent(tx, { ...event, type: 'ticket.state_changed', changes: stateChange }, (at) => ticketRepository.historyCte(history, at));
      }
      return ticket;
    });
  },

  async addComment(p: Principal, ticketId: number, raw: unknown) {
    requireWriteRole(p);
    const input = parseInput(commentInput, raw, 'The comment did not pass validation');
    const actor = toActor(p.user);
    const channel = channelOf(p);
    return ticketRepository.transaction(async (tx) => {
      const current = await ticketRepository.findTicketRef(scopeOf(p), ticketId, tx);
      if (!current) throw notFound(ticketId);
      const row = await ticketRepository.insertComment(tx, { ticketId, authorId: actor.id, body: input.body, public: input.public, channel });
      const comment = toCommentRepresentation(row);
      const ticket = toTicketRepresentation(await ticketRepository.touchTicket(tx, ticketId, row.createdAt));
      const history = { ticketId, actorId: actor.id, channel, action: 'comment_added' as const, changes: [{ field: 'comment', oldValue: null, newValue: comment.id }] };
      await writeEvent(
        tx,
        {
          type: 'ticket.comment_added',
          workspace: p.workspace,
          actor,
          boardId: current.boardId,
          ticketId,
          data: ticket as unknown as JsonValue,
          comment: comment as unknown as JsonValue,
        },
        (at) => ticketRepository.historyCte(history, at),
      );
      return comment;
    });
  },

  /** Oldest first. */
  async comments(p: Principal, ticketId: number, args: ConnectionArgs, hold?: PageHold) {
    if (!(await ticketRepository.findTicketRef(scopeOf(p), ticketId))) throw notFound(ticketId);
    return pageById(args, false, async (page) => (await ticketRepository.listComments(ticketId, page)).map(toCommentRepresentation), {
      sizes: (page) => ticketRepository.listCommentSizes(ticketId, page),
      hold,
    });
  },

  /** Oldest first. */
  async history(p: Principal, ticketId: number, args: ConnectionArgs, hold?: PageHold) {
    if (!(await ticketRepository.findTicketRef(scopeOf(p), ticketId))) throw notFound(ticketId);
    return pageById(args, false, async (page) => (await ticketRepository.listHistory(ticketId, page)).map(toHistoryEntryRepresentation), {
      sizes: (page) => ticketRepository.listHistorySizes(ticketId, page),
      hold,
    });
  },

  /**
   * Per actor and channel over [from, to): tickets created, tickets changed (distinct tickets
   * updated, moved or commented on) and the number of such changes. Counts only tickets on
   * boards the caller sees.
   */
  async activityReport(p: Principal, from: Date, to: Date): Promise<ActivityRow[]> {
    checkTimes({ from, to });
    if (!(from < to)) throw invalid('The period is empty', [{ path: '/to', message: 'must be after from' }]);
    const { byAction, changedTickets, actors } = await ticketRepository.activity(scopeOf(p), from, to);
    const names = new Map(actors.map((a) => [a.id, a]));
    const rows = new Map<string, ActivityRow>();
    const rowOf = (actorId: number, channel: Channel) => {
      const key = `${actorId}:${channel}`;
      let row = rows.get(key);
      if (!row) {
        const user = names.get(actorId)!;
        row = { actor: toActor(user), actorKind: user.kind, channel, ticketsCreated: 0, ticketsChanged: 0, changes: 0 };
        rows.set(key, row);
      }
      return row;
    };
    for (const r of byAction) {
      const row = rowOf(r.actorId, r.channel);
      if (r.action === 'created') row.ticketsCreated += r._count._all;
      else row.changes += r._count._all;
    }
    for (const r of changedTickets) rowOf(r.actorId, r.channel).ticketsChanged += 1;
    return [...rows.values()].sort((a, b) => a.actor.id - b.actor.id || a.channel.localeCompare(b.channel));
  },
};
