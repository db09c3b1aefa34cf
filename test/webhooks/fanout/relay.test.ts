// The outbox relay against a real Temporal dev server (no worker: the delivery runs it starts just
// wait, so what it started can be inspected): which subscriptions an event goes to, one delivery
// per (event, subscription) and one run per subscription however often it runs, and no event
// lost while Temporal is unreachable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { db, prisma } from '../../../src/db/db.ts';
import { createOutboxRelay, EVENT_OUTBOX_CHANNEL, startOutboxRelay } from '../../../src/webhooks/fanout/outbox-relay.ts';
import { deliveryRunWorkflowId } from '../../../src/webhooks/delivery/ids.ts';
import { outboxRelayedEvents, outboxRelayPickupDelay, outboxRelayStepDuration, outboxRelayWakingEvents } from '../../../src/metrics/metrics.ts';
import { SubscriptionIdKey, WorkspaceIdKey } from '../../../src/webhooks/delivery/search-attributes.ts';
import { OVERDUE_AFTER_MS } from '../../../src/webhooks/fanout/constants.ts';
import { createTestWorkspace } from '../../support/fixtures.ts';
import { startTestDevServer, uniqueId, type TestDevServer } from '../../support/temporal.ts';
import { freePort } from '../../support/http.ts';
import { createEvent, createSubscription } from '../fixtures.ts';
import { createTicket } from '../../tickets/helpers.ts';

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;

describe('outbox relay', () => {
  let dev: TestDevServer;
  let ws: Workspace;
  const taskQueue = uniqueId('relay');
  /** A relay that drains when told (no loop of its own). */
  const relay = (client = dev.client) => createOutboxRelay({ client, taskQueue });
  type SignalOptions = { workflowId: string; signalArgs: [{ eventIds: string[] }] };
  /** The real client, except that each signal-with-start first goes through `before` (which may wait or throw). */
  const clientWith = (before: (opts: SignalOptions) => unknown): Client =>
    ({
      workflow: {
        signalWithStart: async (name: string, opts: SignalOptions) => {
          await before(opts);
          return dev.client.workflow.signalWithStart(name, opts as never);
        },
      },
    }) as unknown as Client;

  beforeAll(async () => {
    dev = await startTestDevServer();
    ws = await createTestWorkspace();
  }, 120_000);

  afterAll(async () => {
    await dev?.server.stop();
  }, 60_000);

  const deliveriesOf = (eventId: string) => prisma.delivery.findMany({ where: { eventId }, select: { subscriptionId: true, workflowId: true } });

  it('sends each event to the subscriptions whose event and board filters match, once each', async () => {
    const [support, billing] = ws.boards;
    const all = await createSubscription(ws, { url: 'https://a.example.com/', events: ['ticket.created'] });
    const onSupport = await createSubscription(ws, { url: 'https://b.example.com/', events: ['ticket.created'], boardIds: [support.id] });
    const otherEvent = await createSubscription(ws, { url: 'https://c.example.com/', events: ['ticket.state_changed'] });
    const disabled = await createSubscription(ws, { url: 'https://d.example.com/', events: ['ticket.created'], condition: 'disabled' });
    const paused = await createSubscription(ws, { url: 'https://e.example.com/', events: ['ticket.created'], condition: 'paused' });
    const deleted = await createSubscription(ws, { url: 'https://f.example.com/', events: ['ticket.created'], deletedAt: new Date() });
    const elsewhere = await createTestWorkspace();
    const foreign = await createSubscription(elsewhere, { url: 'https://g.example.com/', events: ['ticket.created'] });

    const onBilling = await createEvent(ws, 'ticket.created');
    await prisma.event.update({ where: { id: onBilling.id }, data: { boardId: billing.id } });
    const onSupportEvent = await createEvent(ws, 'ticket.created');
    await prisma.event.update({ where: { id: onSupportEvent.id }, data: { boardId: support.id } });

    const relayedBefore = (await outboxRelayedEvents.get()).values[0]?.value ?? 0;
    const countOf = async (h: typeof outboxRelayPickupDelay | typeof outboxRelayStepDuration, labels: Record<string, string> = {}) =>
      (await h.get()).values.find((v) => v.metricName?.endsWith('_count') && Object.entries(labels).every(([k, x]) => (v.labels as Record<string, unknown>)[k] === x))?.value ?? 0;
    const pickedBefore = await countOf(outboxRelayPickupDelay);
    const stepsBefore = await Promise.all(['claim', 'write', 'signal', 'mark'].map((step) => countOf(outboxRelayStepDuration, { step })));
    const r = relay();
    await r.drain();
    // Counted for operators (outbox_relayed_events_total): at least these two (other files' events may wait too).
    expect(((await outboxRelayedEvents.get()).values[0]?.value ?? 0) - relayedBefore).toBeGreaterThanOrEqual(2);
    // Timed for operators: each event's pickup delay, and each step of the batch that took them.
    expect((await countOf(outboxRelayPickupDelay)) - pickedBefore).toBeGreaterThanOrEqual(2);
    const stepsAfter = await Promise.all(['claim', 'write', 'signal', 'mark'].map((step) => countOf(outboxRelayStepDuration, { step })));
    stepsAfter.forEach((n, i) => expect(n - stepsBefore[i]).toBeGreaterThanOrEqual(1));
    const expectTargets = async (eventId: string, ids: string[]) =>
      expect((await deliveriesOf(eventId)).map((d) => d.subscriptionId).sort()).toEqual([...ids].sort());
    await expectTargets(onBilling.id, [all.id, paused.id]);
    await expectTargets(onSupportEvent.id, [all.id, onSupport.id, paused.id]);
    for (const s of [otherEvent, disabled, deleted, foreign]) expect(await prisma.delivery.count({ where: { subscriptionId: s.id } })).toBe(0);

    // The deliveries of each subscription are its run's: one run per subscription, under the business
    // key, woken once per batch with the events that joined; found by subscription and workspace.
    const targets = await deliveriesOf(onSupportEvent.id);
    for (const d of targets) expect(d.workflowId).toBe(deliveryRunWorkflowId(d.subscriptionId));
    const history = await dev.client.workflow.getHandle(deliveryRunWorkflowId(all.id)).fetchHistory();
    const wakes = (history.events ?? []).flatMap((e) => (e.workflowExecutionSignaledEventAttributes ? [e.workflowExecutionSignaledEventAttributes] : []));
    expect(wakes).toHaveLength(1);
    const description = await dev.client.workflow.getHandle(deliveryRunWorkflowId(onSupport.id)).describe();
    expect(description.status.name).toBe('RUNNING');
    expect(description.typedSearchAttributes.get(SubscriptionIdKey)).toBe(onSupport.id);
    expect(description.typedSearchAttributes.get(WorkspaceIdKey)).toBe(String(ws.workspace.id));
    const listed = async (query: string) => {
      const ids: string[] = [];
      for await (const w of dev.client.workflow.list({ query })) ids.push(w.workflowId);
      return ids;
    };
    await expect.poll(() => listed(`SubscriptionId = '${onSupport.id}'`)).toEqual([deliveryRunWorkflowId(onSupport.id)]);
    const events = await prisma.event.findMany({ where: { id: { in: [onBilling.id, onSupportEvent.id] } } });
    expect(events.every((e) => e.relayedAt !== null)).toBe(true);
  });

  it('sends webhook.test to its one subscription whatever the filters, and marks unmatched events done', async () => {
    const target = await createSubscription(ws, { url: 'https://t.example.com/', events: ['ticket.comment_added'], boardIds: [ws.boards[0].id] });
    const test = await createEvent(ws, 'webhook.test', { subscriptionId: target.id });
    await prisma.event.update({ where: { id: test.id }, data: { targetSubscriptionId: target.id } });
    const unmatched = await createEvent(ws, 'ticket.updated');
    await relay().drain();
    expect((await deliveriesOf(test.id)).map((d) => d.subscriptionId)).toEqual([target.id]);
    expect(await deliveriesOf(unmatched.id)).toEqual([]);
    expect((await prisma.event.findUniqueOrThrow({ where: { id: unmatched.id } })).relayedAt).not.toBeNull();
  });

  it('relaying the same event again (a relay that died before marking it) doubles nothing', async () => {
    const sub = await createSubscription(ws, { url: 'https://h.example.com/', events: ['ticket.created'] });
    const event = await createEvent(ws, 'ticket.created');
    await relay().drain();
    const first = await deliveriesOf(event.id);
    const run = (await dev.client.workflow.getHandle(deliveryRunWorkflowId(sub.id)).describe()).runId;

    await prisma.event.update({ where: { id: event.id }, data: { relayedAt: null, relayLeaseUntil: null } });
    await Promise.all([relay().drain(), relay().drain()]);
    expect(await deliveriesOf(event.id)).toEqual(first);
    // The same run, woken again at most: it would find one delivery in its queue.
    expect((await dev.client.workflow.getHandle(deliveryRunWorkflowId(sub.id)).describe()).runId).toBe(run);
  });

  it('keeps events while Temporal is unreachable, and relays them once it is back', { timeout: 90_000 }, async () => {
    const own = await createTestWorkspace();
    const sub = await createSubscription(own, { url: 'https://i.example.com/', events: ['ticket.created'] });
    const event = await createEvent(own, 'ticket.created');
    // No gRPC retries (`interceptors: []`): the SDK's own retry of an unreachable server took 20 s
    // before the signal failed, and the relay's handling of a failed signal is what is tested.
    const nowhere = new Client({ connection: Connection.lazy({ address: `127.0.0.1:${await freePort()}`, connectTimeout: 500, interceptors: [] }) });
    await expect(relay(nowhere).drain()).rejects.toThrow();
    const kept = await prisma.event.findUniqueOrThrow({ where: { id: event.id } });
    expect(kept.relayedAt).toBeNull();
    // The failed relay let go of it at once, so another relay need not wait for the lease.
    expect(kept.relayLeaseUntil).toBeNull();

    await relay().drain();
    expect((await deliveriesOf(event.id)).map((d) => d.subscriptionId)).toEqual([sub.id]);
    expect((await prisma.event.findUniqueOrThrow({ where: { id: event.id } })).relayedAt).not.toBeNull();
  });

  it('starts the run of a subscription whose pending delivery is overdue (its run was terminated), and only then', { timeout: 60_000 }, async () => {
    const own = await createTestWorkspace();
    const sub = await createSubscription(own, { url: 'https://j.example.com/', events: ['ticket.created'] });
    await createEvent(own, 'ticket.created');
    const r = relay();
    await r.drain();
    const handle = dev.client.workflow.getHandle(deliveryRunWorkflowId(sub.id));
    const before = (await handle.describe()).runId;
    await handle.terminate('an operator ended it');
    // Not yet overdue: a run may be about to take it.
    await r.sweepOverdue();
    expect((await handle.describe()).status.name).toBe('TERMINATED');
    // Overdue: nothing is taking it, so the sweep starts the run again.
    await prisma.delivery.updateMany({ where: { subscriptionId: sub.id }, data: { createdAt: new Date(Date.now() - OVERDUE_AFTER_MS - 60_000) } });
    expect(await r.sweepOverdue()).toBeGreaterThanOrEqual(1);
    const after = await handle.describe();
    expect(after.status.name).toBe('RUNNING');
    expect(after.runId).not.toBe(before);
  });

  it('the running relay takes a burst in two lanes of batches, each event once', { timeout: 90_000 }, async () => {
    const own = await createTestWorkspace();
    const sub = await createSubscription(own, { url: 'https://k.example.com/', events: ['ticket.created'] });
    const events = await Promise.all(Array.from({ length: 90 }, () => createEvent(own, 'ticket.created')));
    const ids = events.map((e) => e.id);
    const running = startOutboxRelay({ client: dev.client, taskQueue, batchSize: 10, concurrency: 4, lanes: 2, pollMs: 20 });
    try {
      await expect
        .poll(() => prisma.event.count({ where: { id: { in: ids }, relayedAt: null } }), { timeout: 60_000, interval: 200 })
        .toBe(0);
    } finally {
      await running.stop();
    }
    const deliveries = await prisma.delivery.findMany({ where: { eventId: { in: ids } }, select: { subscriptionId: true, workflowId: true } });
    expect(deliveries).toHaveLength(90);
    expect(new Set(deliveries.map((d) => d.workflowId))).toEqual(new Set([deliveryRunWorkflowId(sub.id)]));
    expect(deliveries.every((d) => d.subscriptionId === sub.id)).toBe(true);
  });

  it('a batch whose run is slow to wake holds back no later batch, in its lane or another', { timeout: 90_000 }, async () => {
    const slowSpace = await createTestWorkspace();
    const quickSpace = await createTestWorkspace();
    const slow = await createSubscription(slowSpace, { url: 'https://slow.example.com/', events: ['ticket.created'] });
    const quick = await createSubscription(quickSpace, { url: 'https://quick.example.com/', events: ['ticket.created'] });
    // The real client, except that the slow subscription's signal-with-start waits for the gate.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    const client = clientWith(async (opts) => {
      if (opts.workflowId === deliveryRunWorkflowId(slow.id)) {
        held();
        await gate;
      }
    });
    const first = await createEvent(slowSpace, 'ticket.created');
    // One lane: its next claim does not wait for the batch being woken (nor would a second lane's).
    const running = startOutboxRelay({ client, taskQueue, lanes: 1, pollMs: 20 });
    const relayed = (eventId: string) =>
      expect.poll(() => prisma.event.findUniqueOrThrow({ where: { id: eventId } }).then((e) => e.relayedAt), { timeout: 20_000, interval: 100 }).not.toBeNull();
    try {
      await holding;
      const second = await createEvent(quickSpace, 'ticket.created');
      await relayed(second.id);
      expect((await prisma.event.findUniqueOrThrow({ where: { id: first.id } })).relayedAt).toBeNull();
      open();
      await relayed(first.id);
    } finally {
      open();
      await running.stop();
    }
    expect(await prisma.delivery.count({ where: { subscriptionId: quick.id } })).toBe(1);
    expect(await prisma.delivery.count({ where: { subscriptionId: slow.id } })).toBe(1);
  });

  it('a lane stops claiming while its cap of events is being woken, and goes on as they are woken', { timeout: 90_000 }, async () => {
    await relay().drain(); // nothing of an earlier test left in the outbox
    const own = await createTestWorkspace();
    const sub = await createSubscription(own, { url: 'https://cap.example.com/', events: ['ticket.created'] });
    // Every signal waits for the gate: nothing the lane claims is woken until the test opens it.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const client = clientWith(() => gate);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await createEvent(own, 'ticket.created')).id);
    const waking = async () => (await outboxRelayWakingEvents.get()).values.find((v) => v.labels.lane === '0')?.value ?? 0;
    const written = () => prisma.delivery.count({ where: { subscriptionId: sub.id } });
    // One lane, batches of 2, at most 4 events being woken.
    const running = startOutboxRelay({ client, taskQueue, lanes: 1, batchSize: 2, wakingEventsPerLane: 4, pollMs: 20 });
    try {
      // The lane sets the gauge as it takes a batch and looks at its cap next, with nothing
      // awaited between: once the gauge says 4, the lane waits there for a batch to be woken.
      await expect.poll(waking, { timeout: 20_000, interval: 50 }).toBe(4);
      expect(await written()).toBe(4);
      // Still so a moment later (without the cap, the lane would have taken the other six meanwhile).
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await written()).toBe(4);
      expect(await waking()).toBe(4);
      open();
      await expect.poll(() => prisma.event.count({ where: { id: { in: ids }, relayedAt: null } }), { timeout: 30_000, interval: 100 }).toBe(0);
    } finally {
      open();
      await running.stop();
    }
    expect(await written()).toBe(10);
    expect(await waking()).toBe(0);
  });

  it('a batch that could not be woken keeps its events for a later round, each relayed once', { timeout: 90_000 }, async () => {
    const own = await createTestWorkspace();
    const sub = await createSubscription(own, { url: 'https://m.example.com/', events: ['ticket.created'] });
    let refusals = 0;
    let refusing = true;
    const client = clientWith((opts) => {
      if (opts.workflowId === deliveryRunWorkflowId(sub.id) && refusing) {
        refusals += 1;
        throw new Error('Temporal is away');
      }
    });
    const event = await createEvent(own, 'ticket.created');
    const running = startOutboxRelay({ client, taskQueue, lanes: 1, pollMs: 20 });
    try {
      await expect.poll(() => refusals, { timeout: 20_000, interval: 50 }).toBeGreaterThanOrEqual(2);
      const waiting = await prisma.event.findUniqueOrThrow({ where: { id: event.id } });
      expect(waiting.relayedAt).toBeNull();
      refusing = false;
      await expect.poll(() => prisma.event.findUniqueOrThrow({ where: { id: event.id } }).then((e) => e.relayedAt), { timeout: 30_000, interval: 100 }).not.toBeNull();
    } finally {
      refusing = false;
      await running.stop();
    }
    // Written once, however many times it was claimed.
    expect(await prisma.delivery.count({ where: { eventId: event.id } })).toBe(1);
    const run = await dev.client.workflow.getHandle(deliveryRunWorkflowId(sub.id)).describe();
    expect(run.status.name).toBe('RUNNING');
  });

  it("one signal in flight per subscription: the batches that come meanwhile join the next one", { timeout: 90_000 }, async () => {
    const own = await createTestWorkspace();
    const sub = await createSubscription(own, { url: 'https://n.example.com/', events: ['ticket.created'] });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let signalled = 0;
    const client = clientWith(async () => {
      signalled += 1;
      if (signalled === 1) await gate;
    });
    const r = createOutboxRelay({ client, taskQueue });
    const events: string[] = [];
    const finishing: Promise<void>[] = [];
    // Three batches, one event each; the first one's signal is held until the other two are taken.
    for (let i = 0; i < 3; i++) {
      events.push((await createEvent(own, 'ticket.created')).id);
      const { taken, finish } = await r.takeBatch();
      expect(taken).toBe(1);
      finishing.push(finish());
    }
    await expect.poll(() => signalled).toBe(1);
    open();
    await Promise.all(finishing);
    expect(signalled).toBe(2);
    const relayed = await prisma.event.findMany({ where: { id: { in: events } }, select: { relayedAt: true } });
    expect(relayed.every((e) => e.relayedAt !== null)).toBe(true);
    expect(await prisma.delivery.count({ where: { subscriptionId: sub.id } })).toBe(3);
  });

  it('wakes when events commit, not at its poll: both writers of events notify', { timeout: 90_000 }, async () => {
    const own = await createTestWorkspace();
    const sub = await createSubscription(own, { url: 'https://l.example.com/', events: ['ticket.created'] });
    const { value: key } = await own.key();
    // Written before the relay starts: its first round takes it, so the relay is past its first
    // look at the outbox (and, poll being a minute, asleep) when the next events are written.
    const first = await createEvent(own, 'ticket.created');
    let subscribed!: () => void;
    const listening = new Promise<void>((resolve) => (subscribed = resolve));
    const running = startOutboxRelay({
      client: dev.client,
      taskQueue,
      pollMs: 60_000,
      listen: async (onEvents) => {
        const unlisten = await db.listen(EVENT_OUTBOX_CHANNEL, onEvents);
        subscribed();
        return unlisten;
      },
    });
    const relayed = (eventId: string) =>
      expect.poll(() => prisma.event.findUniqueOrThrow({ where: { id: eventId } }).then((e) => e.relayedAt), { timeout: 20_000, interval: 100 }).not.toBeNull();
    try {
      await listening;
      await relayed(first.id);
      // writeEvent (the outbox writer of most changes)...
      const second = await createEvent(own, 'ticket.created');
      await relayed(second.id);
      // ...and the ticket statement, which writes its event in the same SQL statement.
      const ticket = await createTicket(own, key);
      const third = await prisma.event.findFirstOrThrow({ where: { ticketId: ticket.id, type: 'ticket.created' } });
      await relayed(third.id);
    } finally {
      await running.stop();
    }
    const deliveries = await prisma.delivery.findMany({ where: { subscriptionId: sub.id } });
    expect(deliveries).toHaveLength(3);
  });
});
