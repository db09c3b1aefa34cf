// ticket.updated field filters: saved and validated through REST and GraphQL, and applied by the
// outbox relay to real updates made through the API. The relay here starts no workflows (a
// client that only records the runs it wakes): which deliveries it creates is what is tested.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { prisma } from '../../../src/db/db.ts';
import { createOutboxRelay } from '../../../src/webhooks/fanout/outbox-relay.ts';
import { MAX_FIELDS } from '../../../src/webhooks/subscriptions/webhook.service.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';
import { createTicket, expect422, gql, supportBoard, type Ws } from '../../tickets/helpers.ts';

const URL_OK = 'https://93.184.216.34/ticketing';

describe('ticket.updated field filters', () => {
  let ws: Ws;
  let key: string;
  const started: string[] = [];
  const client = { workflow: { signalWithStart: async (_wf: unknown, o: { workflowId: string }) => void started.push(o.workflowId) } } as unknown as Client;

  beforeAll(async () => {
    ws = await createTestWorkspace('Field filters');
    key = (await ws.key({ scopes: ['webhooks:manage', 'tickets:write', 'tickets:read'] })).value;
  });

  const subscribe = (body: Record<string, unknown>) => api('POST', '/webhooks', { key, body: { url: URL_OK, events: ['ticket.updated'], ...body } });

  it('saves the fields through REST (create, read, change, clear) and GraphQL', async () => {
    const { orderNumber } = supportBoard(ws);
    const created = await subscribe({ fields: ['priority', orderNumber, 'priority'] });
    expect(created.status, created.text).toBe(201);
    expect(created.body.fields).toEqual(['priority', orderNumber]);
    expect((await api('GET', `/webhooks/${created.body.id}`, { key })).body.fields).toEqual(['priority', orderNumber]);
    const changed = await api('PATCH', `/webhooks/${created.body.id}`, { key, body: { fields: ['subject'] } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.fields).toEqual(['subject']);
    expect((await api('PATCH', `/webhooks/${created.body.id}`, { key, body: { fields: [] } })).body.fields).toEqual([]);
    // Absent: every update, as before the filter existed.
    expect((await subscribe({})).body.fields).toEqual([]);

    const viaGraphql = await gql(key, 'mutation($input: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $input) { id fields } }', {
      input: { url: URL_OK, events: ['ticket.updated', 'ticket.created'], fields: ['description'] },
    });
    expect(viaGraphql.errors).toBeUndefined();
    expect(viaGraphql.data.createWebhookSubscription.fields).toEqual(['description']);
  });

  it('refuses unknown fields, state, too many, and a filter without ticket.updated: 422 naming each', async () => {
    const other = await createTestWorkspace('Field filters, elsewhere');
    const foreignField = supportBoard(other).orderNumber;
    expect422(await subscribe({ fields: ['priority', 'nope', foreignField] }), ['/fields/1', '/fields/2']);
    const state = await subscribe({ fields: ['state'] });
    expect422(state, ['/fields/0']);
    expect(state.body.errors[0].message).toContain('ticket.state_changed');
    expect422(await subscribe({ fields: Array.from({ length: MAX_FIELDS + 1 }, (_, i) => `f${i}`) }), ['/fields']);
    expect422(await subscribe({ fields: [''] }), ['/fields/0']);
    expect422(await subscribe({ events: ['ticket.created'], fields: ['priority'] }), ['/fields']);

    // A change of events is checked against the filter it would leave behind.
    const sub = await subscribe({ fields: ['priority'] });
    expect422(await api('PATCH', `/webhooks/${sub.body.id}`, { key, body: { events: ['ticket.created'] } }), ['/fields']);
    expect((await api('PATCH', `/webhooks/${sub.body.id}`, { key, body: { events: ['ticket.created'], fields: [] } })).status).toBe(200);

    const viaGraphql = await gql(key, 'mutation($input: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $input) { id } }', {
      input: { url: URL_OK, events: ['ticket.updated'], fields: ['nope'] },
    });
    expect(viaGraphql.errors?.[0]?.extensions.code).toBe('validation_failed');
  });

  it('sends a filtered subscription only the updates that changed one of its fields; others get every update; other types are not filtered', async () => {
    const fresh = await createTestWorkspace('Field filters, relay');
    const k = (await fresh.key({ scopes: ['webhooks:manage', 'tickets:write', 'tickets:read'] })).value;
    const { orderNumber } = supportBoard(fresh);
    const make = async (body: Record<string, unknown>) => {
      const res = await api('POST', '/webhooks', { key: k, body: { url: URL_OK, ...body } });
      expect(res.status, res.text).toBe(201);
      return res.body.id as string;
    };
    const onPriority = await make({ events: ['ticket.updated', 'ticket.created'], fields: ['priority'] });
    // `changes` names a custom field `fields.<id>`: either form names it.
    const onOrder = await make({ events: ['ticket.updated'], fields: [`fields.${orderNumber}`, 'subject'] });
    expect((await api('GET', `/webhooks/${onOrder}`, { key: k })).body.fields).toEqual([orderNumber, 'subject']);
    const everything = await make({ events: ['ticket.updated'] });

    const ticket = await createTicket(fresh, k);
    const patch = async (body: Record<string, unknown>) => expect((await api('PATCH', `/tickets/${ticket.id}`, { key: k, body })).status).toBe(200);
    await patch({ priority: 'low' });
    await patch({ description: 'Now it works on Tuesdays' });
    await patch({ fields: [{ fieldId: orderNumber, value: 'A-7' }] });
    await patch({ subject: 'Checkout fails on Tuesdays', priority: 'high' });

    await createOutboxRelay({ client, taskQueue: 'unused' }).drain();
    const events = await prisma.event.findMany({ where: { ticketId: ticket.id }, orderBy: { seq: 'asc' }, include: { deliveries: { select: { subscriptionId: true } } } });
    const to = (id: string) => events.filter((e) => e.deliveries.some((d) => d.subscriptionId === id)).map((e) => e.type);
    const updates = events.filter((e) => e.type === 'ticket.updated');
    expect(updates).toHaveLength(4);
    const updatesTo = (id: string) => updates.map((e) => e.deliveries.some((d) => d.subscriptionId === id));
    expect(updatesTo(onPriority)).toEqual([true, false, false, true]);
    expect(updatesTo(onOrder)).toEqual([false, false, true, true]);
    expect(updatesTo(everything)).toEqual([true, true, true, true]);
    // The filter is about ticket.updated only: the creation still reaches the filtered subscription.
    expect(to(onPriority)).toEqual(['ticket.created', 'ticket.updated', 'ticket.updated']);
    expect(events.every((e) => e.relayedAt !== null)).toBe(true);
    // Each subscription's run was woken once for the batch.
    for (const id of [onPriority, onOrder, everything]) expect(started.filter((w) => w === `deliveries:${id}`)).toHaveLength(1);
  });
});
