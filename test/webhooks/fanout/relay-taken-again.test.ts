// An event whose deliveries a relay wrote before it died (the event marked written, never
// relayed) is taken again by another relay once the lease runs out: it must get no new
// deliveries, only wake the runs of those it has. Matched again, a subscription enabled since
// got it after its later events, which a strict subscription's claim no longer waits for (found
// by the engine's simulation, seed 371 on PostgreSQL). The relay's Temporal client only records
// the runs it wakes: which deliveries it writes is what is tested.
import { describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { prisma } from '../../../src/db/db.ts';
import { createOutboxRelay } from '../../../src/webhooks/fanout/outbox-relay.ts';
import { deliveryRunWorkflowId } from '../../../src/webhooks/delivery/ids.ts';
import { createTestWorkspace } from '../../support/fixtures.ts';
import { createEvent, createSubscription } from '../fixtures.ts';

describe('an event taken again after its relay died', () => {
  it('gets no deliveries beyond those written before, and their runs are woken', async () => {
    const woken: string[] = [];
    const client = { workflow: { signalWithStart: async (_wf: unknown, o: { workflowId: string }) => void woken.push(o.workflowId) } } as unknown as Client;
    const ws = await createTestWorkspace();
    const receiving = await createSubscription(ws, { url: 'https://receiver.example/a' });
    const disabled = await createSubscription(ws, { url: 'https://receiver.example/b', condition: 'disabled' });
    const event = await createEvent(ws);

    // A relay writes the event's deliveries, then dies before waking anyone or marking it relayed.
    const dying = await createOutboxRelay({ client, taskQueue: 'unused' }).takeBatch();
    expect(dying.taken).toBe(1);
    // Meanwhile the other subscription is enabled, and the dead relay's lease runs out.
    await prisma.webhookSubscription.update({ where: { id: disabled.id }, data: { condition: 'receiving' } });
    await prisma.event.update({ where: { id: event.id }, data: { relayLeaseUntil: new Date(Date.now() - 60_000) } });

    const again = await createOutboxRelay({ client, taskQueue: 'unused' }).takeBatch();
    expect(again.taken).toBe(1);
    await again.finish();
    const deliveries = await prisma.delivery.findMany({ where: { eventId: event.id }, select: { subscriptionId: true } });
    expect(deliveries.map((d) => d.subscriptionId)).toEqual([receiving.id]);
    expect(woken).toEqual([deliveryRunWorkflowId(receiving.id)]);
    expect((await prisma.event.findUniqueOrThrow({ where: { id: event.id } })).relayedAt).not.toBeNull();
  });
});
