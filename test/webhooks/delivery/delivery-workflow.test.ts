// The delivery workflow on the time-skipping test server, with a real worker running the real
// activities against a real HTTPS receiver on 127.0.0.1:8443 (its own CA) and the database.
// Times are workflow times: the activities log with the test server's clock.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import nodemailer from 'nodemailer';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { MockActivityEnvironment, type TestWorkflowEnvironment } from '@temporalio/testing';
import { createDeliveryActivities } from '../../../src/webhooks/delivery/activities.ts';
import { initialRunState } from '../../../src/webhooks/delivery/run-state.ts';
import type { ClaimResult } from '../../../src/webhooks/delivery/queue.repository.ts';
import { resendDelivery } from '../../../src/webhooks/delivery/client.ts';
import { wakeRun } from '../../../src/webhooks/delivery/wake.ts';
import { deliveryRunWorkflowId } from '../../../src/webhooks/delivery/ids.ts';
import { RETRY_DELAYS_MS, RETRY_JITTER } from '../../../src/webhooks/message/schedule.ts';
import { SubscriptionIdKey, WorkspaceIdKey, type DeliveryRef } from '../../../src/webhooks/delivery/search-attributes.ts';
import { conditionRepository } from '../../../src/webhooks/subscriptions/condition.repository.ts';
import { manualRepository } from '../../../src/webhooks/delivery/manual.repository.ts';
import { generateWebhookSecret } from '../../../src/webhooks/message/signing.ts';
import { createWebhookSender } from '../../../src/webhooks/message/webhook-sender.ts';
import { createTestWorkspace } from '../../support/fixtures.ts';
import { uniqueId } from '../../support/temporal.ts';
import { startTimeSkippingDeliveryStack } from '../../support/delivery-stack.ts';
import { addUser, attemptsOf, createDelivery, createSubscription, deliveryResult, deliveryRow, notificationsOf, runResult, wakeRunOf, subscriptionRow, updateSubscription } from '../fixtures.ts';
import { createTestCa, startReceiver, type Receiver, type TestCa } from '../receiver.ts';

describe('webhook delivery workflow (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  let receiver: Receiver;
  let tls: TestCa;
  let taskQueue: string;
  let stop: (() => Promise<void>) | undefined;
  const mails: { to: { address: string }[]; subject: string }[] = [];

  beforeAll(async () => {
    tls = createTestCa();
    receiver = await startReceiver(tls);
    const json = nodemailer.createTransport({ jsonTransport: true });
    ({ env, taskQueue, stop } = await startTimeSkippingDeliveryStack({
      queue: 'deliveries',
      tls,
      activities: (server) => ({
        client: server.client,
        mailer: {
          from: 'Ticketing <no-reply@example.test>',
          transport: {
            async sendMail(message) {
              const info = await json.sendMail(message);
              mails.push(JSON.parse(info.message));
              return info;
            },
          },
        },
      }),
    }));
  }, 120_000);

  afterAll(async () => {
    await stop?.();
    await receiver?.close();
  }, 60_000);

  const start = (ref: DeliveryRef) => wakeRunOf(env.client, taskQueue, ref);
  const resultOf = (ref: DeliveryRef) => deliveryResult(env.client, ref);
  /** Within the ±10% jitter of a nominal delay. */
  const inBand = (actual: number, nominal: number) => {
    expect(actual).toBeGreaterThanOrEqual(Math.floor(nominal * (1 - RETRY_JITTER)));
    expect(actual).toBeLessThanOrEqual(Math.ceil(nominal * (1 + RETRY_JITTER)));
  };
  const hookUrl = (name: string) => `${receiver.origin}/${name}`;
  const ms = (d: Date | null) => d?.getTime() ?? NaN;

  it("delivers a signed event on the first attempt, in the subscription's run, and records it", async () => {
    const ws = await createTestWorkspace();
    const path = `/${uniqueId('ok')}`;
    receiver.respond(path, { status: 204 });
    const sub = await createSubscription(ws, { url: hookUrl(path.slice(1)), consecutiveFailures: 5 });
    const ref = await createDelivery(ws, sub.id);

    const workflowId = await start(ref);
    expect(workflowId).toBe(`deliveries:${sub.id}`);
    // Waking it again is harmless: same business key, the delivery is sent once.
    expect(await start(ref)).toBe(workflowId);
    expect(await resultOf(ref)).toEqual({ status: 'succeeded', attempt: 1 });
    expect(await runResult(env.client, sub.id)).toEqual({ attempted: 1, ended: 'idle' });
    const deliveredBy = (await env.client.workflow.getHandle(workflowId).describe()).runId;
    // A run that ended: the next wake starts a new one, which finds nothing to send.
    expect(await start(ref)).toBe(workflowId);
    expect(await runResult(env.client, sub.id)).toEqual({ attempted: 0, ended: 'idle' });

    const [request, ...more] = receiver.received(path);
    expect(more).toHaveLength(0);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toBe('Service-Webhooks/1.0');
    expect(request.headers['webhook-id']).toBe(ref.eventId);
    expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const envelope = new StandardWebhook(sub.secret).verify(request.body, request.headers) as Record<string, unknown>;
    expect(new SvixWebhook(sub.secret).verify(request.body, request.headers)).toEqual(envelope);
    expect(Object.keys(envelope)).toEqual(['id', 'type', 'occurredAt', 'workspace', 'actor', 'changes', 'data']);
    expect(envelope).toMatchObject({ id: ref.eventId, type: 'ticket.created' });

    const [attempt] = await attemptsOf(ref.deliveryId);
    expect(attempt).toMatchObject({
      attempt: 1,
      trigger: 'scheduled',
      status: 'succeeded',
      httpStatus: 204,
      responseExcerpt: '',
      error: null,
      payload: request.body,
      nextAttemptAt: null,
      workflowId,
      workflowRunId: deliveredBy,
      eventId: ref.eventId,
      eventType: 'ticket.created',
    });
    expect(await deliveryRow(ref.deliveryId)).toMatchObject({ status: 'succeeded', attemptCount: 1 });
    expect((await subscriptionRow(sub.id)).consecutiveFailures).toBe(0);

    // Operators find the run that carried the event from its attempt in the log (workflowId and
    // workflowRunId), and the subscription's runs by its id and workspace.
    const description = await env.client.workflow.getHandle(workflowId, deliveredBy).describe();
    expect(description.type).toBe('deliveryRunWorkflow');
    expect(description.typedSearchAttributes.get(SubscriptionIdKey)).toBe(sub.id);
    expect(description.typedSearchAttributes.get(WorkspaceIdKey)).toBe(String(ws.workspace.id));
  });

  it('runs the whole schedule: 7 attempts at 0, +1 min, +5 min, +30 min, +2 h, +8 h, +24 h, each delay ±10%', async () => {
    const ws = await createTestWorkspace();
    const path = `/${uniqueId('down')}`;
    receiver.respond(path, { status: 503, body: 'x'.repeat(3000) });
    const sub = await createSubscription(ws, { url: hookUrl(path.slice(1)) });
    const ref = await createDelivery(ws, sub.id);

    await start(ref);
    expect(await resultOf(ref)).toEqual({ status: 'failed', attempt: 7 });

    const attempts = await attemptsOf(ref.deliveryId);
    expect(attempts.map((a) => [a.attempt, a.status, a.httpStatus, a.trigger])).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((n) => [n, 'failed', 503, 'scheduled']),
    );
    for (const [i, a] of attempts.entries()) {
      expect(a.responseExcerpt).toBe('x'.repeat(1024));
      if (i === attempts.length - 1) {
        expect(a.nextAttemptAt).toBeNull();
        continue;
      }
      // The logged next attempt is the schedule's delay after this one, jittered by at most ±10%…
      const logged = ms(a.nextAttemptAt) - ms(a.attemptedAt);
      inBand(logged, RETRY_DELAYS_MS[i]);
      // …and the next attempt happened then (the activity's own run time is all that is added).
      const gap = ms(attempts[i + 1].attemptedAt) - ms(a.attemptedAt);
      expect(gap).toBeGreaterThanOrEqual(logged);
      expect(gap).toBeLessThan(logged + 30_000);
    }
    // The run slept durably until each logged (jittered) next attempt: a timer of its history fires then.
    const history = await env.client.workflow.getHandle(deliveryRunWorkflowId(sub.id)).fetchHistory();
    const firesAt = (history.events ?? []).flatMap((e) => {
      const t = e.timerStartedEventAttributes?.startToFireTimeout;
      if (!t || !e.eventTime) return [];
      return [Number(e.eventTime.seconds) * 1000 + Math.round((e.eventTime.nanos ?? 0) / 1e6) + Number(t.seconds ?? 0) * 1000 + Math.round((t.nanos ?? 0) / 1e6)];
    });
    for (const a of attempts.slice(0, -1)) expect(firesAt.some((at) => Math.abs(at - ms(a.nextAttemptAt)) < 5_000), `a timer for ${a.nextAttemptAt?.toISOString()}`).toBe(true);

    const requests = receiver.received(path);
    expect(requests).toHaveLength(7);
    expect(new Set(requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([ref.eventId]));
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
    expect(await deliveryRow(ref.deliveryId)).toMatchObject({ status: 'failed', attemptCount: 7, nextAttemptAt: null });
    expect(await subscriptionRow(sub.id)).toMatchObject({ condition: 'receiving', consecutiveFailures: 7 });
  });

  it('does not follow redirects: a 3xx fails and the next attempt is scheduled', async () => {
    const ws = await createTestWorkspace();
    const path = `/${uniqueId('moved')}`;
    let calls = 0;
    receiver.respond(path, () => (++calls === 1 ? { status: 302, headers: { location: `${receiver.origin}${path}-new` } } : { status: 200, body: 'ok' }));
    const sub = await createSubscription(ws, { url: hookUrl(path.slice(1)) });
    const ref = await createDelivery(ws, sub.id);

    await start(ref);
    expect(await resultOf(ref)).toEqual({ status: 'succeeded', attempt: 2 });
    expect(receiver.received(`${path}-new`)).toHaveLength(0);
    const attempts = await attemptsOf(ref.deliveryId);
    expect(attempts.map((a) => [a.attempt, a.status, a.httpStatus, a.responseExcerpt])).toEqual([
      [1, 'failed', 302, ''],
      [2, 'succeeded', 200, 'ok'],
    ]);
  });

  it('410 stops at once, disables the subscription, cancels its pending deliveries and notifies', async () => {
    const ws = await createTestWorkspace();
    const path = `/${uniqueId('gone')}`;
    const sub = await createSubscription(ws, { url: hookUrl(path.slice(1)) });
    const first = await createDelivery(ws, sub.id);
    receiver.respond(path, (req) => (req.headers['webhook-id'] === first.eventId ? { status: 500 } : { status: 410, body: 'gone' }));

    // The first fails once and waits for its retry…
    await start(first);
    await expect.poll(async () => (await deliveryRow(first.deliveryId)).attemptCount, { timeout: 20_000, message: 'the first attempt' }).toBe(1);
    // …the second (its event comes later) is answered 410.
    const second = await createDelivery(ws, sub.id);
    await start(second);
    expect(await resultOf(second)).toEqual({ status: 'cancelled', attempt: 1 });
    expect(await resultOf(first)).toEqual({ status: 'cancelled', attempt: 1 });

    expect(await subscriptionRow(sub.id)).toMatchObject({ condition: 'disabled', conditionReason: 'gone' });
    expect((await subscriptionRow(sub.id)).disabledAt).not.toBeNull();
    expect(await deliveryRow(first.deliveryId)).toMatchObject({ status: 'cancelled', attemptCount: 1, nextAttemptAt: null });
    expect(await deliveryRow(second.deliveryId)).toMatchObject({ status: 'cancelled', attemptCount: 1 });
    expect((await attemptsOf(second.deliveryId)).map((a) => [a.status, a.httpStatus])).toEqual([['failed', 410]]);
    // The first's retry sent nothing.
    expect(receiver.received(path).map((r) => r.headers['webhook-id'])).toEqual([first.eventId, second.eventId]);
    // The administrator is told, in the app and by e-mail, as of a pause.
    await expect.poll(async () => (await notificationsOf(ws.workspace.id)).map((n) => [n.kind, n.userId, n.emailedAt !== null]), { timeout: 20_000 }).toEqual([
      ['webhook.disabled', ws.admin.id, true],
    ]);
    expect(mails.filter((m) => m.subject === `Webhook disabled: ${sub.url}`).flatMap((m) => m.to.map((t) => t.address))).toEqual([ws.admin.email]);
  });

  it('20 consecutive failures pause and notify the administrators; held deliveries go out on resume, in event order', async () => {
    const ws = await createTestWorkspace();
    const secondAdmin = await addUser(ws, { isAdmin: true, email: `second-${uniqueId('a')}@example.test` });
    await addUser(ws, { isAdmin: false, email: `agent-${uniqueId('a')}@example.test` });
    await addUser(ws, { isAdmin: true, deactivated: true, email: `gone-${uniqueId('a')}@example.test` });
    const path = `/${uniqueId('flaky')}`;
    let healthy = false;
    receiver.respond(path, () => (healthy ? { status: 200 } : { status: 500 }));
    // One at a time, so that the receiver also gets them in event order.
    const sub = await createSubscription(ws, { url: hookUrl(path.slice(1)), maxInFlight: 1 });

    // Two deliveries fail all 7 attempts: 14 failures in a row.
    for (let i = 0; i < 2; i++) {
      const ref = await createDelivery(ws, sub.id);
      await start(ref);
      expect(await resultOf(ref)).toEqual({ status: 'failed', attempt: 7 });
    }
    expect(await subscriptionRow(sub.id)).toMatchObject({ condition: 'receiving', consecutiveFailures: 14 });

    // The third's 6th attempt is the 20th failure (at +10 h 36 min ±10%); its 7th, 24 h ±10% later, is held.
    const third = await createDelivery(ws, sub.id);
    await start(third);
    await env.sleep('12 hours');
    const paused = await vi.waitFor(async () => {
      const s = await subscriptionRow(sub.id);
      expect(s.condition, 'the pause').toBe('paused');
      return s;
    }, 20_000);
    expect(paused).toMatchObject({ consecutiveFailures: 20, conditionReason: 'failures' });
    expect(paused.pausedAt).not.toBeNull();
    await env.sleep('27 hours');
    await expect.poll(async () => (await deliveryRow(third.deliveryId)).status, { timeout: 20_000, message: 'the third delivery held' }).toBe('held');
    expect(await deliveryRow(third.deliveryId)).toMatchObject({ attemptCount: 6, nextAttemptAt: null });

    // Every active administrator is notified, in the app and by e-mail.
    const notices = await notificationsOf(ws.workspace.id);
    expect(notices.map((n) => n.userId)).toEqual([ws.admin.id, secondAdmin.id]);
    for (const n of notices) {
      expect(n).toMatchObject({ kind: 'webhook.paused', link: `/settings/webhooks/${sub.id}` });
      expect(n.emailedAt).not.toBeNull();
    }
    const mailedTo = mails.filter((m) => m.subject.includes(path)).flatMap((m) => m.to.map((t) => t.address));
    expect(mailedTo.sort()).toEqual([ws.admin.email, secondAdmin.email].sort());

    // New events while paused are held without an attempt.
    const fourth = await createDelivery(ws, sub.id);
    const fifth = await createDelivery(ws, sub.id);
    await start(fifth);
    await start(fourth);
    for (const ref of [fourth, fifth]) {
      await expect.poll(async () => (await deliveryRow(ref.deliveryId)).status, { timeout: 20_000, message: 'a new delivery held' }).toBe('held');
    }
    const sentBeforeResume = receiver.received(path).length;
    expect(sentBeforeResume).toBe(20);

    healthy = true;
    expect(await conditionRepository.resume(sub.id)).toBe(true);
    // The held deliveries are the queue again: the run started on resume sends them, oldest event first.
    await wakeRun(env.client, taskQueue, { subscriptionId: sub.id, workspaceId: ws.workspace.id });
    expect(await runResult(env.client, sub.id)).toEqual({ attempted: 3, ended: 'idle' });

    expect(await resultOf(third)).toEqual({ status: 'succeeded', attempt: 7 });
    expect(await resultOf(fourth)).toEqual({ status: 'succeeded', attempt: 1 });
    expect(await resultOf(fifth)).toEqual({ status: 'succeeded', attempt: 1 });
    // In event order, whatever order their events joined the run in.
    const released = receiver.received(path).slice(sentBeforeResume).map((r) => r.headers['webhook-id']);
    expect(released).toEqual([third.eventId, fourth.eventId, fifth.eventId]);
    expect((await attemptsOf(third.deliveryId)).at(-1)).toMatchObject({ attempt: 7, status: 'succeeded' });
    expect(await subscriptionRow(sub.id)).toMatchObject({ condition: 'receiving', consecutiveFailures: 0 });
  });

  it('signs with both secrets, new first, for 24 hours after a rotation', async () => {
    const ws = await createTestWorkspace();
    const path = `/${uniqueId('rotated')}`;
    receiver.respond(path, { status: 500 });
    const [previousSecret, secret] = [generateWebhookSecret(), generateWebhookSecret()];
    const sub = await createSubscription(ws, {
      url: hookUrl(path.slice(1)),
      secret,
      previousSecret,
      secretRotatedAt: new Date(await env.currentTimeMs()),
    });
    const ref = await createDelivery(ws, sub.id);

    await start(ref);
    expect(await resultOf(ref)).toEqual({ status: 'failed', attempt: 7 });

    const requests = receiver.received(path);
    // Attempts 1-6 fall within 24 h of the rotation (the 6th at +10 h 36 min ±10%), the 7th after it.
    expect(requests.map((r) => r.headers['webhook-signature'].split(' ').length)).toEqual([2, 2, 2, 2, 2, 2, 1]);
    for (const req of requests) {
      const [newest, older] = req.headers['webhook-signature'].split(' ');
      const only = (signature: string) => ({ ...req.headers, 'webhook-signature': signature });
      for (const Library of [StandardWebhook, SvixWebhook]) {
        expect(() => new Library(secret).verify(req.body, req.headers)).not.toThrow();
        expect(() => new Library(secret).verify(req.body, only(newest))).not.toThrow();
        if (older) {
          expect(() => new Library(previousSecret).verify(req.body, req.headers)).not.toThrow();
          expect(() => new Library(previousSecret).verify(req.body, only(older))).not.toThrow();
          expect(() => new Library(secret).verify(req.body, only(older))).toThrow();
        } else {
          expect(() => new Library(previousSecret).verify(req.body, req.headers)).toThrow();
        }
      }
    }
  });

  it('re-sends a delivery as a new manual attempt with the same body and webhook-id', async () => {
    const ws = await createTestWorkspace();
    const path = `/${uniqueId('resend')}`;
    receiver.respond(path, { status: 200, body: 'thanks' });
    const sub = await createSubscription(ws, { url: hookUrl(path.slice(1)) });
    const ref = await createDelivery(ws, sub.id);
    await start(ref);
    expect(await resultOf(ref)).toEqual({ status: 'succeeded', attempt: 1 });

    const requestId = uniqueId('req');
    const resent = await resendDelivery(env.client, taskQueue, ref, requestId);
    expect(resent.workflowId).toBe(`resend:${ref.deliveryId}:${requestId}`);
    expect(resent.result).toMatchObject({ outcome: 'succeeded', attempt: 2, httpStatus: 200 });
    // The same request id does not send twice.
    expect((await resendDelivery(env.client, taskQueue, ref, requestId)).result).toEqual(resent.result);

    const [original, again, ...more] = receiver.received(path);
    expect(more).toHaveLength(0);
    expect(again.body).toBe(original.body);
    expect(again.headers['webhook-id']).toBe(original.headers['webhook-id']);
    expect(() => new StandardWebhook(sub.secret).verify(again.body, again.headers)).not.toThrow();
    const attempts = await attemptsOf(ref.deliveryId);
    expect(attempts.map((a) => [a.attempt, a.trigger, a.status, a.workflowId])).toEqual([
      [1, 'scheduled', 'succeeded', deliveryRunWorkflowId(sub.id)],
      [2, 'manual', 'succeeded', resent.workflowId],
    ]);
    expect(attempts[1].payload).toBe(attempts[0].payload);
  });

  it('fences a batch whose worker was given up for dead: its late answer records nothing, the retry records the attempt', async () => {
    const ws = await createTestWorkspace();
    const path = `/${uniqueId('zombie')}`;
    // The first request hangs until the test lets it answer: the worker that sent it is "dead".
    let letZombieAnswer!: () => void;
    const zombieAnswers = new Promise<void>((resolve) => (letZombieAnswer = resolve));
    let calls = 0;
    receiver.respond(path, async () => {
      if (++calls === 1) await zombieAnswers;
      return { status: 202, body: calls === 1 ? 'late' : 'queued' };
    });
    const sub = await createSubscription(ws, { url: hookUrl(path.slice(1)) });
    const ref = await createDelivery(ws, sub.id, 'webhook.test');
    const activities = createDeliveryActivities({ allowPrivateTargets: true, tls: { ca: tls.ca }, mailer: null });
    const execution = { workflowId: deliveryRunWorkflowId(sub.id), runId: 'run-1' };
    const claim: ClaimResult = await new MockActivityEnvironment({ workflowExecution: execution }).run(activities.claimDue, {
      subscriptionId: sub.id, workspaceId: ws.workspace.id, runId: 'run-1', token: 'run-1:1', state: initialRunState(), open: 0, now: Date.now(), waitedFor: null,
    });
    expect(claim.deliveries).toEqual([{ id: ref.deliveryId, eventId: ref.eventId, attempt: 1, waited: null }]);
    // The same claim again (its workflow task was lost with the worker, and replay runs it again): the same delivery, not nothing.
    const again: ClaimResult = await new MockActivityEnvironment({ workflowExecution: execution }).run(activities.claimDue, {
      subscriptionId: sub.id, workspaceId: ws.workspace.id, runId: 'run-1', token: 'run-1:1', state: initialRunState(), open: 0, now: Date.now(), waitedFor: null,
    });
    expect(again.deliveries.map((d) => d.id)).toEqual([ref.deliveryId]);
    const batch = { subscriptionId: sub.id, workspaceId: ws.workspace.id, token: 'run-1:1', deliveries: claim.deliveries, width: 1 };

    const zombie = new MockActivityEnvironment({ workflowExecution: execution, attempt: 1 }).run(activities.sendBatch, batch);
    await vi.waitFor(() => expect(calls).toBe(1));
    // Temporal retries the batch (attempt 2): it takes the delivery over and records it.
    const retried = await new MockActivityEnvironment({ workflowExecution: execution, attempt: 2 }).run(activities.sendBatch, batch);
    expect(retried).toMatchObject({ attempted: 1, succeeded: 1, stop: null });
    letZombieAnswer();
    expect(await zombie).toMatchObject({ attempted: 0, succeeded: 0 });

    // Two requests with one webhook-id; one attempt in the log, the retry's.
    expect(new Set(receiver.received(path).map((r) => r.headers['webhook-id']))).toEqual(new Set([ref.eventId]));
    expect(receiver.received(path)).toHaveLength(2);
    expect((await attemptsOf(ref.deliveryId)).map((a) => [a.attempt, a.trigger, a.status, a.responseExcerpt])).toEqual([[1, 'test', 'succeeded', 'queued']]);
    expect(await deliveryRow(ref.deliveryId)).toMatchObject({ status: 'succeeded', attemptCount: 1, scheduledAttempts: 1, claim: null });

    // Paused: the run's next claim answers a manual request `held`, sending and recording nothing.
    expect(await manualRepository.request(sub.id, [ref.deliveryId, 'dlv_missing'], 'resend:asker', new Date())).toEqual({ asked: [ref.deliveryId], full: [] });
    await updateSubscription(sub.id, { condition: 'paused' });
    const paused: ClaimResult = await new MockActivityEnvironment({ workflowExecution: execution }).run(activities.claimDue, {
      subscriptionId: sub.id, workspaceId: ws.workspace.id, runId: 'run-1', token: 'run-1:2', state: initialRunState(), open: 0, now: Date.now(), waitedFor: null,
    });
    expect(paused).toMatchObject({ stop: 'paused', deliveries: [], answered: [{ deliveryId: ref.deliveryId, requesters: ['resend:asker'], result: { outcome: 'held' } }] });
    expect(await deliveryRow(ref.deliveryId)).toMatchObject({ manualRequests: [], manualRequestedAt: null, claim: null });
    expect(receiver.received(path)).toHaveLength(2);
    expect(await attemptsOf(ref.deliveryId)).toHaveLength(1);
  });

  it('checks the address a delivery really connects to, whatever the name said when saved', async () => {
    const path = `/${uniqueId('rebind')}`;
    receiver.respond(path, { status: 200 });
    // A DNS that now answers every name with the receiver's loopback address (a rebinding attack).
    const rebinding = { resolve: async () => [new URL(receiver.origin).hostname] };
    const guarded = createWebhookSender({ allowPrivateTargets: false, ca: tls.ca, hosts: rebinding });
    const open = createWebhookSender({ allowPrivateTargets: true, ca: tls.ca, hosts: rebinding });
    const ws = { workspaceId: 1 };
    try {
      const refused = await guarded.send(`https://hooks.example.com:8443${path}`, {}, '{}', ws);
      expect(refused.httpStatus).toBeUndefined();
      // The delivery log is the integrator's: it names the rule, not the address the name resolved to.
      expect(refused.error).toMatch(/^EBLOCKEDADDRESS: hooks\.example\.com resolves to an address the webhook URL rule refuses/);
      expect(refused.error).not.toMatch(/127\.0\.0/);
      const literal = await guarded.send(`${receiver.origin}${path}`, {}, '{}', ws);
      expect(literal.error).toContain('must not point to a loopback address');
      expect(receiver.received(path)).toHaveLength(0);
      // The same lookup with the address rule lifted reaches the receiver: the hook is what refused.
      expect(await open.send(`https://localhost:8443${path}`, {}, '{}', ws)).toMatchObject({ httpStatus: 200 });
      expect(receiver.received(path)).toHaveLength(1);
    } finally {
      guarded.close();
      open.close();
    }
  });
});
