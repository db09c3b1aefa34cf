// `WebhookSubscription.health`: the settings list's "Failing" facts for every row of a page in one
// statement (health.repository.ts), with the delivery log's read-time visibility; and the
// per-request batch that gathers the rows' keys (src/graphql/batch.ts).
import { describe, expect, it } from 'vitest';
import { prisma } from '../../../src/db/db.ts';
import { newId } from '../../../src/ids.ts';
import { writeEvent } from '../../../src/events/event.outbox.ts';
import { workspaceRepository } from '../../../src/workspaces/workspace.repository.ts';
import { batchPerRequest } from '../../../src/graphql/batch.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';
import { billingBoard, supportBoard } from '../../tickets/helpers.ts';
import { createSubscription, seedAttempts, writeDelivery } from '../fixtures.ts';

const LIST = `{ webhookSubscriptions(first: 100) { edges { node { id health {
  attempts24h succeeded24h successRate24h lastAttempt { status httpStatus attemptedAt eventType } lastFailure { status httpStatus attemptedAt } } } } } }`;

const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000);

describe('subscription health', () => {
  it('answers each row’s last 24 hours, newest attempt and newest failure', async () => {
    const ws = await createTestWorkspace('Subscription health');
    const key = (await ws.key({ scopes: ['webhooks:manage'] })).value;
    const failing = await createSubscription(ws, { url: 'https://hooks.example.com/health-failing' });
    const healthy = await createSubscription(ws, { url: 'https://hooks.example.com/health-ok' });
    const quiet = await createSubscription(ws, { url: 'https://hooks.example.com/health-quiet' });
    await seedAttempts(ws, failing.id, [[hoursAgo(30), 'succeeded', 5], [hoursAgo(3), 'failed', 5], [hoursAgo(2), 'failed', 5], [hoursAgo(1), 'succeeded', 5]]);
    await seedAttempts(ws, failing.id, [[hoursAgo(0.5), 'failed', 5]]);
    await seedAttempts(ws, healthy.id, [[hoursAgo(5), 'succeeded', 5]]);

    const res = await api('POST', '/graphql', { key, body: { query: LIST } });
    expect(res.body.errors).toBeUndefined();
    const byId = new Map(res.body.data.webhookSubscriptions.edges.map((e: any) => [e.node.id, e.node.health]));
    expect(byId.get(failing.id)).toMatchObject({ attempts24h: 4, succeeded24h: 1, successRate24h: 0.25, lastAttempt: { status: 'failed', httpStatus: 500 }, lastFailure: { status: 'failed' } });
    expect(new Date((byId.get(failing.id) as any).lastFailure.attemptedAt).getTime()).toBeCloseTo(hoursAgo(0.5).getTime(), -5);
    expect(byId.get(healthy.id)).toMatchObject({ attempts24h: 1, succeeded24h: 1, successRate24h: 1, lastAttempt: { status: 'succeeded', httpStatus: 200 }, lastFailure: null });
    expect(byId.get(quiet.id)).toEqual({ attempts24h: 0, succeeded24h: 0, successRate24h: null, lastAttempt: null, lastFailure: null });
  });

  it('counts only attempts at events the caller’s role sees', async () => {
    const ws = await createTestWorkspace('Subscription health visibility');
    const [boardA, boardB] = [supportBoard(ws).board.id, billingBoard(ws).board.id];
    await workspaceRepository.restrictRole(ws.roles.agent.id, [boardA]);
    await prisma.role.update({ where: { id: ws.roles.agent.id }, data: { permissions: ['tickets.write', 'webhooks.manage'] } });
    const limited = (await ws.key({ role: ws.roles.agent.id, scopes: ['webhooks:manage'] })).value;
    const every = (await ws.key({ scopes: ['webhooks:manage'] })).value;
    const sub = await createSubscription(ws, { url: 'https://hooks.example.com/health-boards', boardIds: [] });
    for (const [boardId, status] of [[boardA, 'succeeded'], [boardB, 'failed']] as const) {
      const event = await writeEvent(prisma, { workspace: ws.workspace, type: 'ticket.created', actor: null, boardId, data: { id: 1 } });
      const delivery = await writeDelivery(event.id, sub.id);
      await prisma.deliveryAttempt.create({
        data: { id: newId('att'), deliveryId: delivery.id, subscriptionId: sub.id, eventId: event.id, eventType: event.type, attempt: 1, trigger: 'scheduled', status, httpStatus: status === 'failed' ? 503 : 200, durationMs: 5, payload: '{}', attemptedAt: new Date(), workflowId: delivery.workflowId },
      });
    }
    await prisma.webhookSubscription.update({ where: { id: sub.id }, data: { boardIds: [boardA] } });
    const one = `query($id: String!) { webhookSubscription(id: $id) { health { attempts24h lastFailure { httpStatus } } } }`;
    const seen = await api('POST', '/graphql', { key: limited, body: { query: one, variables: { id: sub.id } } });
    expect(seen.body.data.webhookSubscription.health).toEqual({ attempts24h: 1, lastFailure: null });
    const all = await api('POST', '/graphql', { key: every, body: { query: one, variables: { id: sub.id } } });
    expect(all.body.data.webhookSubscription.health).toEqual({ attempts24h: 2, lastFailure: { httpStatus: 503 } });
  });

  it('loads the keys asked in one pass with one call per request', async () => {
    const calls: string[][] = [];
    const load = batchPerRequest<object, string, number>(async (keys) => {
      calls.push(keys);
      return new Map(keys.map((k) => [k, k.length]));
    });
    const [a, b] = [{}, {}];
    const answers = await Promise.all([load(a, 'x'), load(a, 'yy'), load(a, 'x'), load(b, 'zzz')]);
    expect(answers).toEqual([1, 2, 1, 3]);
    expect(calls).toEqual([['x', 'yy'], ['zzz']]);
    // A later pass of the same request is a new batch.
    expect(await load(a, 'wwww')).toBe(4);
    expect(calls).toHaveLength(3);
  });
});
