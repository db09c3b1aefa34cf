// Shared set-up of the ticket tests: a workspace with its demo boards, and short-hands for the
// Support board's ids and for valid ticket bodies.
import { expect } from 'vitest';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { prisma } from '../../src/db/db.ts';

export type Ws = Awaited<ReturnType<typeof createTestWorkspace>>;

export function supportBoard(ws: Ws) {
  const board = ws.boards.find((b) => b.name === 'Support')!;
  const field = (name: string) => board.fields.find((f) => f.name === name)!.id;
  const state = (name: string) => board.states.find((s) => s.name === name)!;
  return { board, product: field('Product'), orderNumber: field('Order number'), affectedUsers: field('Affected users'), state };
}

export function billingBoard(ws: Ws) {
  const board = ws.boards.find((b) => b.name === 'Billing')!;
  const field = (name: string) => board.fields.find((f) => f.name === name)!.id;
  return { board, invoice: field('Invoice'), refund: field('Refund requested'), dueDate: field('Due date') };
}

/** A valid POST /tickets body for the Support board. */
export function ticketBody(ws: Ws, overrides: Record<string, unknown> = {}) {
  const s = supportBoard(ws);
  return {
    boardId: s.board.id,
    subject: 'Checkout fails',
    description: 'The pay button does nothing',
    requesterEmail: 'customer@example.com',
    priority: 'high',
    fields: [{ fieldId: s.product, value: 'Web' }],
    ...overrides,
  };
}

export async function createTicket(ws: Ws, key: string, overrides: Record<string, unknown> = {}) {
  const res = await api('POST', '/tickets', { key, body: ticketBody(ws, overrides) });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

export async function gql(key: string, query: string, variables?: Record<string, unknown>) {
  const res = await api('POST', '/graphql', { key, body: { query, variables } });
  return res.body as { data: any; errors?: { message: string; extensions: { code: string; errors?: { path: string }[] } }[] };
}

/** The outbox rows of a ticket, in commit order. */
export const eventsOf = (ticketId: number) => prisma.event.findMany({ where: { ticketId }, orderBy: { seq: 'asc' } });
export const historyOf = (ticketId: number) => prisma.ticketHistoryEntry.findMany({ where: { ticketId }, orderBy: { id: 'asc' } });

/** A 422 naming exactly these paths. */
export function expect422(res: { status: number; headers: Headers; body: any; text: string }, paths: string[]) {
  expect(res.status, res.text).toBe(422);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect(res.body.code).toBe('validation_failed');
  expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([...paths].sort());
  for (const e of res.body.errors) expect(e.message).toEqual(expect.any(String));
}
