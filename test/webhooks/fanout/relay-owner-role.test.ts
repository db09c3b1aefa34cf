// The relay gives a subscription only events its owner's role may read now: a key whose role was
// narrowed to one board after it made a subscription gets no event of another board (a key never
// sees more than its role, its webhooks included). No workflows: the relay's client only records
// the runs it wakes; what is judged is the deliveries it writes.
import { describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { prisma } from '../../../src/db/db.ts';
import { createOutboxRelay } from '../../../src/webhooks/fanout/outbox-relay.ts';
import { workspaceRepository } from '../../../src/workspaces/workspace.repository.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';
import { billingBoard, createTicket, supportBoard } from '../../tickets/helpers.ts';

const recordingClient = { workflow: { signalWithStart: async () => undefined } } as unknown as Client;

describe("the relay and the subscription owner's role", () => {
  it('delivers only the boards the owner’s role sees now; the others’ events are not written for it', async () => {
    const ws = await createTestWorkspace();
    const support = supportBoard(ws).board;
    const billing = billingBoard(ws);
    await prisma.role.update({ where: { id: ws.roles.agent.id }, data: { permissions: { push: 'webhooks.manage' } } });
    const agent = (await ws.key({ role: ws.roles.agent.id })).value;
    const admin = (await ws.key()).value;
    // Made while the role saw every board: no board filter.
    const made = await api('POST', '/webhooks', { key: agent, body: { url: 'https://93.184.216.34/owner', events: ['ticket.created'] } });
    expect(made.status, made.text).toBe(201);
    const subscriptionId = made.body.id as string;

    await workspaceRepository.restrictRole(ws.roles.agent.id, [support.id]);
    await prisma.event.updateMany({ where: { relayedAt: null }, data: { relayedAt: new Date() } });
    const onA = await createTicket(ws, admin);
    const onB = await createTicket(ws, admin, { boardId: billing.board.id, fields: [{ fieldId: billing.invoice, value: 'INV-1' }], priority: 'normal' });
    expect(await createOutboxRelay({ client: recordingClient, taskQueue: 'owner-role' }).drain()).toBe(2);

    const written = await prisma.delivery.findMany({ where: { subscriptionId }, select: { event: { select: { ticketId: true } } } });
    expect(written.map((d) => d.event.ticketId)).toEqual([onA.id]);
    expect(onB.id).not.toBe(onA.id);
  });
});
