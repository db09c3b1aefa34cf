// Pausing and disabling a subscription by hand (GraphQL, the settings UI): each change is written
// with its operational event (reason `manual`, the caller as actor), what waits is held or
// cancelled at once, and the usual refusals hold: another workspace's ids are not found, a role
// without webhooks.manage is refused, a transition from the wrong condition is a 422-class error.
import { beforeAll, describe, expect, it } from 'vitest';
import { prisma } from '../../../src/db/db.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';
import { createDelivery, createSubscription, deliveryRow, subscriptionRow } from '../fixtures.ts';

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;

const PAUSE = 'mutation($id: String!) { pauseWebhookSubscription(id: $id) { id condition conditionReason } }';
const DISABLE = 'mutation($id: String!) { disableWebhookSubscription(id: $id) { id condition conditionReason } }';
const RESUME = 'mutation($id: String!) { resumeWebhookSubscription(id: $id) { id condition conditionReason } }';

async function gql(key: string, query: string, variables: Record<string, unknown>) {
  const res = await api('POST', '/graphql', { key, body: { query, variables } });
  expect(res.status).toBe(200);
  return res.body as { data: any; errors?: { extensions: { code: string } }[] };
}
const codeOf = (r: { errors?: { extensions: { code: string } }[] }) => r.errors?.[0]?.extensions.code;

const eventsAbout = (subscriptionId: string) =>
  prisma.event.findMany({ where: { aboutSubscriptionId: subscriptionId }, orderBy: { seq: 'asc' }, select: { type: true, actorId: true, payload: true } });

describe('pausing and disabling a subscription by hand', () => {
  let ws: Workspace;
  let key: string;
  let actorId: number;
  beforeAll(async () => {
    ws = await createTestWorkspace('Manual condition');
    const created = await ws.key({ scopes: ['webhooks:manage'] });
    key = created.value;
    actorId = created.record.serviceUserId;
  });

  it('pauses: holds what waits, emits webhook.paused (manual, with its actor); resume sends it again', async () => {
    const sub = await createSubscription(ws, { url: 'https://hooks.example.com/manual-pause' });
    const waiting = await createDelivery(ws, sub.id);
    const paused = await gql(key, PAUSE, { id: sub.id });
    expect(paused.errors).toBeUndefined();
    expect(paused.data.pauseWebhookSubscription).toEqual({ id: sub.id, condition: 'paused', conditionReason: 'manual' });
    expect((await deliveryRow(waiting.deliveryId)).status).toBe('held');
    const [event] = await eventsAbout(sub.id);
    expect(event).toMatchObject({ type: 'webhook.paused', actorId, payload: { data: { reason: 'manual', condition: 'paused' } } });
    // No notice for a change a person made: the notices are for what the service did on its own.
    expect(await prisma.notification.count({ where: { workspaceId: ws.workspace.id, data: { path: ['subscriptionId'], equals: sub.id } } })).toBe(0);

    // Paused already: pausing again is refused and writes nothing.
    expect(codeOf(await gql(key, PAUSE, { id: sub.id }))).toBe('invalid_state_transition');
    expect(await eventsAbout(sub.id)).toHaveLength(1);

    const resumed = await gql(key, RESUME, { id: sub.id });
    expect(resumed.data.resumeWebhookSubscription).toEqual({ id: sub.id, condition: 'receiving', conditionReason: null });
    expect((await deliveryRow(waiting.deliveryId)).status).toBe('pending');
  });

  it('disables, from receiving or paused: cancels what waits and emits webhook.disabled (manual); disabling again is refused', async () => {
    const sub = await createSubscription(ws, { url: 'https://hooks.example.com/manual-disable' });
    const waiting = await createDelivery(ws, sub.id);
    expect((await gql(key, PAUSE, { id: sub.id })).errors).toBeUndefined();
    const disabled = await gql(key, DISABLE, { id: sub.id });
    expect(disabled.errors).toBeUndefined();
    expect(disabled.data.disableWebhookSubscription).toEqual({ id: sub.id, condition: 'disabled', conditionReason: 'manual' });
    expect((await deliveryRow(waiting.deliveryId)).status).toBe('cancelled');
    expect((await subscriptionRow(sub.id)).pausedAt).toBeNull();
    const events = await eventsAbout(sub.id);
    expect(events.map((e) => e.type)).toEqual(['webhook.paused', 'webhook.disabled']);
    expect(events[1]).toMatchObject({ actorId, payload: { data: { reason: 'manual', condition: 'disabled' } } });

    expect(codeOf(await gql(key, DISABLE, { id: sub.id }))).toBe('invalid_state_transition');
    expect(codeOf(await gql(key, PAUSE, { id: sub.id }))).toBe('invalid_state_transition');
    expect(await eventsAbout(sub.id)).toHaveLength(2);
  });

  it('answers hostile ids and callers with not_found, forbidden, insufficient_scope or unauthenticated, and changes nothing', async () => {
    const sub = await createSubscription(ws, { url: 'https://hooks.example.com/manual-hostile' });
    const other = await createTestWorkspace('Manual condition, other');
    const otherKey = (await other.key({ scopes: ['webhooks:manage'] })).value;
    const agentKey = (await ws.key({ scopes: ['webhooks:manage'], role: ws.roles.agent.id })).value;
    const narrowKey = (await ws.key({ scopes: ['tickets:read'] })).value;
    for (const query of [PAUSE, DISABLE]) {
      expect(codeOf(await gql(otherKey, query, { id: sub.id }))).toBe('not_found');
      expect(codeOf(await gql(agentKey, query, { id: sub.id }))).toBe('forbidden');
      expect(codeOf(await gql(narrowKey, query, { id: sub.id }))).toBe('insufficient_scope');
      expect(codeOf(await gql(key, query, { id: 'wh_' + 'A'.repeat(26) }))).toBe('not_found');
      expect(codeOf(await gql(key, query, { id: "wh_'; DROP TABLE \"Event\"; --" }))).toBe('validation_failed');
      expect(codeOf(await gql(key, query, { id: 'wh_' + 'a'.repeat(26) }))).toBe('validation_failed');
      const long = await gql(key, query, { id: 'x'.repeat(100_000) });
      expect(codeOf(long)).toBe('validation_failed');
      expect(JSON.stringify(long).length).toBeLessThan(2000);
      expect(codeOf(await gql(key, query, { id: 'wh_\u0000' }))).toBe('validation_failed');
      const anonymous = await api('POST', '/graphql', { body: { query, variables: { id: sub.id } } });
      expect(anonymous.body.errors[0].extensions.code).toBe('unauthenticated');
    }
    expect((await subscriptionRow(sub.id)).condition).toBe('receiving');
    expect(await eventsAbout(sub.id)).toEqual([]);
  });
});
