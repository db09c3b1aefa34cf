// The gauges read at scrape time: the outbox's backlog and the age of its oldest unrelayed event,
// and the deliveries held for paused subscriptions. This file's database is its own, so the
// values are exactly this test's rows.
import { describe, expect, it } from 'vitest';
import { metricsRoutes } from '../../src/http/metrics-endpoint.ts';
import { prisma } from '../../src/db/db.ts';
import { relayRepository } from '../../src/webhooks/fanout/relay.repository.ts';
import { createTestWorkspace } from '../support/fixtures.ts';
import { createDelivery, createEvent, createSubscription } from '../webhooks/fixtures.ts';
import { sample, samples } from './scrape.ts';

const routes = metricsRoutes();
const scrape = async () => samples(await (await routes.fetch(new Request('http://localhost/metrics'))).text());

describe('outbox and held-delivery gauges', () => {
  it('show an unrelayed event, its age, and nothing once it is relayed', async () => {
    const ws = await createTestWorkspace();
    const empty = await scrape();
    expect(sample(empty, 'outbox_unrelayed_events')).toBe(0);
    expect(sample(empty, 'outbox_oldest_unrelayed_event_age_seconds')).toBe(0);

    const older = await createEvent(ws);
    const newer = await createEvent(ws);
    await prisma.event.update({ where: { id: older.id }, data: { occurredAt: new Date(Date.now() - 90_000) } });
    const waiting = await scrape();
    expect(sample(waiting, 'outbox_unrelayed_events')).toBe(2);
    expect(sample(waiting, 'outbox_oldest_unrelayed_event_age_seconds')).toBeGreaterThanOrEqual(90);
    expect(sample(waiting, 'outbox_oldest_unrelayed_event_age_seconds')).toBeLessThan(3600);

    await relayRepository.markRelayed([older.id, newer.id], new Date());
    const relayed = await scrape();
    expect(sample(relayed, 'outbox_unrelayed_events')).toBe(0);
    expect(sample(relayed, 'outbox_oldest_unrelayed_event_age_seconds')).toBe(0);
  });

  it('count the deliveries held for a paused subscription', async () => {
    const ws = await createTestWorkspace();
    const sub = await createSubscription(ws, { url: 'https://hooks.example.test/held', condition: 'paused' });
    const before = sample(await scrape(), 'webhook_deliveries_held');
    const held = [await createDelivery(ws, sub.id), await createDelivery(ws, sub.id)];
    await createDelivery(ws, sub.id);
    await prisma.delivery.updateMany({ where: { id: { in: held.map((d) => d.deliveryId) } }, data: { status: 'held' } });
    expect(sample(await scrape(), 'webhook_deliveries_held') - before).toBe(2);
  });
});
