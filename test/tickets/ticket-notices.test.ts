// New-ticket notices go to administrators whose role sees the ticket's board: the administrator
// flag does not widen what a role sees, so a board-limited one would be told of a ticket it gets
// 404 for.
import { describe, expect, it } from 'vitest';
import { prisma } from '../../src/db/db.ts';
import { workspaceRepository } from '../../src/workspaces/workspace.repository.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { billingBoard, createTicket, supportBoard } from './helpers.ts';

describe('new-ticket notices and board visibility', () => {
  it('tells only the administrators whose role sees the board', async () => {
    const ws = await createTestWorkspace('Ticket notices');
    const support = supportBoard(ws);
    await workspaceRepository.restrictRole(ws.roles.agent.id, [support.board.id]);
    // An administrator by flag, with a role that sees the Support board only.
    const limited = await prisma.user.create({
      data: { workspaceId: ws.workspace.id, userName: `lim-${ws.workspace.id}`, fullName: 'Limited Admin', roleId: ws.roles.agent.id, isAdmin: true },
    });
    const key = await ws.key();
    const billing = billingBoard(ws);
    const hidden = await createTicket(ws, key.value, { boardId: billing.board.id, fields: [{ fieldId: billing.invoice, value: 'INV-9' }] });
    const shown = await createTicket(ws, key.value);
    const noticesOf = (userId: number) => prisma.notification.findMany({ where: { userId, kind: 'ticket.created' } });

    expect((await noticesOf(limited.id)).map((n) => (n.data as { ticketId: number }).ticketId)).toEqual([shown.id]);
    expect((await noticesOf(ws.admin.id)).map((n) => (n.data as { ticketId: number }).ticketId).sort()).toEqual([hidden.id, shown.id].sort());
    // The premise: the limited role gets 404 for the Billing ticket.
    const limitedKey = await ws.key({ role: ws.roles.agent.id, scopes: ['tickets:read'] });
    expect((await api('GET', `/tickets/${hidden.id}`, { key: limitedKey.value })).status).toBe(404);
  }, 120_000);
});
