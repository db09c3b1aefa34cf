// Pause notices are at most one per hour per administrator per subscription: failing test events
// could pause a subscription, resume it and repeat, notifying (and e-mailing) every administrator
// each time. A 410 that disables a subscription notifies the same way. Recorded as the delivery
// workflow records attempts, without Temporal.
import { beforeAll, describe, expect, it } from 'vitest';
import { prisma } from '../../../src/db/db.ts';
import { deliveryRepository, PAUSE_AFTER_FAILURES } from '../../../src/webhooks/delivery/delivery.repository.ts';
import { conditionRepository } from '../../../src/webhooks/subscriptions/condition.repository.ts';
import { CONDITION_NOTICE_INTERVAL_MS } from '../../../src/webhooks/delivery/condition-notice.ts';
import { emailConditionNotice } from '../../../src/webhooks/delivery/condition-notice-mail.ts';
import { createTestWorkspace } from '../../support/fixtures.ts';
import { workspaceRepository } from '../../../src/workspaces/workspace.repository.ts';
import { addUser, createDelivery, createSubscription, deliveryRow, updateSubscription } from '../fixtures.ts';

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;

describe('paused notices', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await createTestWorkspace('Paused notices');
    await addUser(ws, { isAdmin: true, email: `second-${ws.workspace.id}@example.test` });
  });

  /** The failure that pauses the subscription (the 20th in a row), as the workflow records it. */
  async function failToPause(subscriptionId: string, inWorkspace: Workspace = ws) {
    await updateSubscription(subscriptionId, { consecutiveFailures: PAUSE_AFTER_FAILURES - 1 });
    const ref = await createDelivery(inWorkspace, subscriptionId);
    const { paused } = (await deliveryRepository.recordAttempt({
      ...ref,
      attempt: 1,
      trigger: 'test',
      waited: null,
      fence: null,
      outcome: 'failed',
      lastScheduled: false,
      httpStatus: 500,
      durationMs: 3,
      responseExcerpt: null,
      error: null,
      payload: '{}',
      attemptedAt: new Date(),
      nextAttemptAt: null,
      workflowId: `wf-${ref.deliveryId}`,
    }))!;
    expect(paused, 'the attempt pauses the subscription').not.toBeNull();
    return paused!;
  }
  const noticesOf = (subscriptionId: string) =>
    prisma.notification.findMany({ where: { workspaceId: ws.workspace.id, kind: 'webhook.paused', data: { path: ['subscriptionId'], equals: subscriptionId } } });

  it('notifies each administrator once an hour per subscription, however often it is paused', async () => {
    const sub = await createSubscription(ws, { url: 'https://hooks.example.com/flaky' });
    const first = await failToPause(sub.id);
    expect(first.recipients).toHaveLength(2);
    expect(await noticesOf(sub.id)).toHaveLength(2);

    // Resume and fail again, twice: nobody is told again within the hour, and nobody is e-mailed.
    for (let i = 0; i < 2; i++) {
      expect(await conditionRepository.resume(sub.id)).toBe(true);
      const again = await failToPause(sub.id);
      expect(again.recipients).toEqual([]);
      const sent: unknown[] = [];
      await emailConditionNotice({ from: 'x@example.test', transport: { sendMail: async (m) => sent.push(m) } }, again);
      expect(sent).toEqual([]);
    }
    expect(await noticesOf(sub.id)).toHaveLength(2);

    // Another subscription is another matter.
    const other = await createSubscription(ws, { url: 'https://hooks.example.com/other' });
    expect((await failToPause(other.id)).recipients).toHaveLength(2);

    // An hour after the last notice, a new pause is told again.
    await prisma.notification.updateMany({
      where: { id: { in: (await noticesOf(sub.id)).map((n) => n.id) } },
      data: { createdAt: new Date(Date.now() - CONDITION_NOTICE_INTERVAL_MS - 1000) },
    });
    expect(await conditionRepository.resume(sub.id)).toBe(true);
    expect((await failToPause(sub.id)).recipients).toHaveLength(2);
  });

  it('writes a notice only for administrators whose role opens the subscription (all of its boards)', async () => {
    const own = await createTestWorkspace('Paused notices by board');
    const [boardA, boardB] = own.boards.map((b) => b.id);
    // An administrator (settings) whose role sees board A only.
    await workspaceRepository.restrictRole(own.roles.agent.id, [boardA]);
    const limited = await prisma.user.create({
      data: { workspaceId: own.workspace.id, userName: `lim-${own.workspace.id}`, fullName: 'Limited Admin', email: `limited-${own.workspace.id}@example.test`, roleId: own.roles.agent.id, isAdmin: true },
    });
    const recipientsOf = async (boardIds: string[], url: string) => {
      const sub = await createSubscription(own, { url, boardIds });
      const notice = await failToPause(sub.id, own);
      const written = await prisma.notification.findMany({ where: { kind: 'webhook.paused', data: { path: ['subscriptionId'], equals: sub.id } }, select: { userId: true } });
      // The e-mail goes to the same people: the notice's recipients are the rows written.
      expect(notice.recipients).toHaveLength(written.length);
      return written.map((n) => n.userId).sort((a, b) => a - b);
    };
    expect(await recipientsOf([boardB], 'https://hooks.example.com/board-b')).toEqual([own.admin.id]);
    expect(await recipientsOf([boardA, boardB], 'https://hooks.example.com/boards-a-b')).toEqual([own.admin.id]);
    expect(await recipientsOf([], 'https://hooks.example.com/every-board')).toEqual([own.admin.id]);
    expect(await recipientsOf([boardA], 'https://hooks.example.com/board-a')).toEqual([own.admin.id, limited.id].sort((a, b) => a - b));
  });

  it('a 410 that disables the subscription notifies its administrators once, in the app and by e-mail, and cancels what waits', async () => {
    const sub = await createSubscription(ws, { url: 'https://hooks.example.com/gone' });
    const waiting = await createDelivery(ws, sub.id);
    const gone = async () => {
      const ref = await createDelivery(ws, sub.id);
      return (await deliveryRepository.recordAttempt({
        ...ref, attempt: 1, trigger: 'scheduled', waited: null, fence: null, outcome: 'gone', lastScheduled: false, httpStatus: 410, durationMs: 3,
        responseExcerpt: null, error: null, payload: '{}', attemptedAt: new Date(), nextAttemptAt: null, workflowId: `wf-${ref.deliveryId}`,
      }))!;
    };
    const first = await gone();
    expect(first.paused).toBeNull();
    expect(first.disabled?.kind).toBe('webhook.disabled');
    expect(first.disabled?.recipients).toHaveLength(2);
    expect((await deliveryRow(waiting.deliveryId)).status).toBe('cancelled');
    const written = await prisma.notification.findMany({ where: { kind: 'webhook.disabled', data: { path: ['subscriptionId'], equals: sub.id } } });
    expect(written.map((n) => n.title)).toEqual(['Webhook disabled', 'Webhook disabled']);
    expect(written[0].body).toContain('410 Gone');
    expect(written[0].link).toBe(`/settings/webhooks/${sub.id}`);

    const sent: { subject?: string; text?: unknown }[] = [];
    await emailConditionNotice({ from: 'x@example.test', transport: { sendMail: async (m) => void sent.push(m) } }, first.disabled!);
    expect(sent.map((m) => m.subject)).toEqual([`Webhook disabled: ${sub.url}`, `Webhook disabled: ${sub.url}`]);
    expect(String(sent[0].text)).toContain('enabled again');

    // Already disabled: a later 410 (a batch's other answer) tells nobody again.
    expect((await gone()).disabled).toBeNull();
    // Enabled and gone again within the hour: disabled again, but nobody is told twice in an hour.
    await updateSubscription(sub.id, { condition: 'receiving', disabledAt: null });
    const again = await gone();
    expect(again.disabled?.recipients).toEqual([]);
  });
});
