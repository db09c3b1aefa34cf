// Issue 34, item 6 (lifecycle and notices), in headless Chromium against the real service: a person
// pauses and disables a webhook (confirmations start on Cancel; each change writes its operational
// event), a 410 disables it and notifies, webhook notices apart from ticket notices with unread
// counts and Mark all as read; and the leftovers: the rate field's floor is the server's, and the
// webhooks list polls one GraphQL query for all its rows. Steps share one workspace and run in order.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { prisma } from '../../src/db/db.ts';
import { config } from '../../src/config.ts';
import { notificationService } from '../../src/notifications/notification.service.ts';
import { screenshot, startUiStack, type UiStack } from './harness.ts';

const WAIT = { timeout: 30_000 };
const hookPath = '/hooks/lifecycle';
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let stack: UiStack;
let page: Page;
let subscriptionId: string;

const heading = (p: Page, name: string) => p.getByRole('heading', { level: 1, name, exact: true });
const nav = (p: Page) => p.getByRole('navigation', { name: 'Settings' });
const focusedText = (p: Page) => p.evaluate(() => document.activeElement?.textContent);
const eventsAbout = (id: string) => prisma.event.findMany({ where: { aboutSubscriptionId: id }, orderBy: { seq: 'asc' }, select: { type: true, actorId: true, payload: true } });

/** Serious and critical axe-core violations on the page as it is now (the same rule as accessibility.test.ts). */
async function violations(p: Page): Promise<string[]> {
  if (!(await p.evaluate(() => 'axe' in window))) await p.evaluate(axeSource);
  const found = await p.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(c: object, o: object): Promise<{ violations: { id: string; impact: string | null; nodes: { html: string }[] }[] }> } }).axe;
    return (await axe.run({ exclude: [['[data-live-announcer]']] }, { resultTypes: ['violations'] })).violations;
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id} (${v.nodes.map((n) => n.html.slice(0, 120)).join(', ')})`);
}

async function signIn(p: Page) {
  await p.goto('/settings/');
  await p.getByLabel('E-mail').fill(stack.workspace.admin.email!);
  await p.getByLabel('Password').fill('correct horse battery staple');
  await p.getByRole('button', { name: 'Sign in' }).click();
  await heading(p, 'API keys').waitFor(WAIT);
}

describe('settings UI: lifecycle and notices', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    stack = await startUiStack();
    stack.receiver.respond(hookPath, { status: 200, body: 'ok' });
    const key = (await stack.workspace.key({ name: 'lifecycle' })).value;
    const created = await stack.rest('POST', '/webhooks', key, { url: `${stack.receiver.origin}${hookPath}`, events: ['ticket.created'] });
    expect(created.status).toBe(201);
    subscriptionId = created.body.id;
    // A second row for the list's poll.
    expect((await stack.rest('POST', '/webhooks', key, { url: `${stack.receiver.origin}/hooks/lifecycle-other`, events: ['ticket.created'] })).status).toBe(201);
    ({ page } = await stack.newPage(1440));
    // Playwright's clock in the page, running as the real one until a test moves it on past a
    // poll instead of waiting the poll out (installed before the page sets any timer).
    await page.clock.install();
    await signIn(page);
  }, 240_000);

  beforeEach(({ task, onTestFailed }) => {
    onTestFailed(() => screenshot(page, `failed-lifecycle-${task.name.slice(0, 40).replace(/\W+/g, '-')}`).then(() => undefined));
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('the webhooks list polls one GraphQL query for every row’s health, not three per row', async () => {
    const operations: string[] = [];
    const record = (r: { method(): string; url(): string; postData(): string | null }) => {
      if (!r.url().includes('/graphql')) return;
      const name = /(?:query|mutation)\s+(\w+)/.exec(r.method() === 'GET' ? decodeURIComponent(r.url()) : (r.postData() ?? ''))?.[1];
      if (name) operations.push(name);
    };
    // A page of its own, whose clock (Playwright's, in the page) the test moves on by the poll's
    // 10 s instead of waiting them out; the file's shared page keeps the real clock.
    const { context, page: own } = await stack.newPage(1440);
    try {
      await own.clock.install();
      await signIn(own);
      own.on('request', record);
      await nav(own).getByRole('link', { name: 'Webhooks' }).click();
      await own.getByRole('row', { name: /hooks\/lifecycle-other/ }).waitFor(WAIT);
      const listQueries = () => operations.filter((o) => o === 'WebhookSubscriptions').length;
      // The first load, then one refetch of the 10 s poll once the page's clock has passed it.
      await expect.poll(listQueries, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
      await own.clock.fastForward(10_000);
      await expect.poll(listQueries, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
      own.off('request', record);
      expect(operations.filter((o) => /LastDelivery|DeliveryStats|Deliveries/.test(o))).toEqual([]);
      const rows = own.getByRole('row', { name: /hooks\/lifecycle/ });
      expect(await rows.count()).toBe(2);
      for (const row of await rows.all()) expect(await row.locator('dl').textContent()).toContain('Success, last 24 hours');
    } finally {
      await context.close();
    }
  });

  it('pauses and disables by hand behind confirmations that start on Cancel, each with its operational event', async () => {
    await page.goto(`/settings/webhooks/${subscriptionId}`);
    await heading(page, 'Webhook').waitFor(WAIT);
    const card = page.locator('.card');
    await card.getByText('Receiving', { exact: true }).waitFor(WAIT);

    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    const pause = page.getByRole('alertdialog', { name: 'Pause this webhook?' });
    await pause.waitFor(WAIT);
    await expect.poll(() => focusedText(page)).toBe('Cancel');
    await pause.getByRole('button', { name: 'Pause webhook' }).click();
    await pause.waitFor({ state: 'detached' });
    await card.getByText('Paused', { exact: true }).waitFor(WAIT);
    expect(await card.textContent()).toContain('Paused by a person');
    expect(await page.getByRole('button', { name: 'Pause', exact: true }).count()).toBe(0);

    await page.getByRole('button', { name: 'Disable', exact: true }).click();
    const disable = page.getByRole('alertdialog', { name: 'Disable this webhook?' });
    await disable.waitFor(WAIT);
    await expect.poll(() => focusedText(page)).toBe('Cancel');
    // Cancel changes nothing.
    await disable.getByRole('button', { name: 'Cancel' }).click();
    await disable.waitFor({ state: 'detached' });
    expect(await card.getByText('Paused', { exact: true }).count()).toBe(1);
    await page.getByRole('button', { name: 'Disable', exact: true }).click();
    await disable.getByRole('button', { name: 'Disable webhook' }).click();
    await card.getByText('Disabled', { exact: true }).waitFor(WAIT);
    expect(await card.textContent()).toContain('Disabled by a person');

    const events = await eventsAbout(subscriptionId);
    expect(events.map((e) => [e.type, e.actorId, (e.payload as { data: { reason: string } }).data.reason])).toEqual([
      ['webhook.paused', stack.workspace.admin.id, 'manual'],
      ['webhook.disabled', stack.workspace.admin.id, 'manual'],
    ]);

    await page.getByRole('button', { name: 'Enable' }).click();
    await card.getByText('Receiving', { exact: true }).waitFor(WAIT);
    expect((await eventsAbout(subscriptionId)).map((e) => e.type)).toEqual(['webhook.paused', 'webhook.disabled', 'webhook.enabled']);
  });

  it('a 410 disables the webhook and notifies: webhook notices apart from ticket notices, with unread counts', async () => {
    await notificationService.notify(stack.workspace.workspace.id, [stack.workspace.admin.id], {
      kind: 'ticket.created',
      title: 'New ticket: printer on fire',
      body: 'A ticket was created.',
    });
    stack.receiver.respond(hookPath, { status: 410, body: 'gone' });
    const clicked = new Date();
    await page.getByRole('button', { name: 'Send test event' }).click();
    // The page learns of it from its polls (the webhook every 5 s, the unread counts every 15 s):
    // once the service has disabled the subscription and written its notice, the page's clock is
    // moved on past both, rather than waiting for them.
    const condition = async () => (await prisma.webhookSubscription.findUniqueOrThrow({ where: { id: subscriptionId } })).condition;
    await expect.poll(condition, WAIT).toBe('disabled');
    const notices = () => prisma.notification.count({ where: { userId: stack.workspace.admin.id, kind: 'webhook.disabled', createdAt: { gte: clicked } } });
    await expect.poll(notices, WAIT).toBe(1);
    await page.clock.fastForward(15_000);
    const card = page.locator('.card');
    await card.getByText('Disabled', { exact: true }).waitFor(WAIT);
    expect(await card.textContent()).toContain('answered 410 Gone');

    // The navigation counts both unread notices.
    const link = nav(page).getByRole('link', { name: /Notifications/ });
    await expect.poll(() => link.textContent(), WAIT).toBe('Notifications 2 unread');
    await link.click();
    await heading(page, 'Notifications').waitFor(WAIT);
    await page.getByRole('article', { name: /Webhook disabled/ }).waitFor(WAIT);
    await page.getByRole('article', { name: /printer on fire/ }).waitFor(WAIT);

    await page.getByRole('tab', { name: /Webhooks/ }).click();
    const webhooks = page.getByRole('tabpanel', { name: /Webhooks/ });
    const disabled = webhooks.getByRole('article', { name: /Webhook disabled/ });
    await disabled.waitFor(WAIT);
    expect(await disabled.textContent()).toContain('410 Gone');
    expect(await webhooks.getByRole('article').count()).toBe(1);
    expect(await page.getByRole('tab', { name: /Webhooks/ }).textContent()).toBe('Webhooks 1 unread');

    await page.getByRole('tab', { name: /Tickets/ }).click();
    const tickets = page.getByRole('tabpanel', { name: /Tickets/ });
    await tickets.getByRole('article', { name: /printer on fire/ }).waitFor(WAIT);
    expect(await tickets.getByRole('article').count()).toBe(1);
    await screenshot(page, 'notifications-tabs');
  });

  it('marks all webhook notices read, leaving the ticket notice unread', async () => {
    await page.getByRole('tab', { name: /Webhooks/ }).click();
    const webhooks = page.getByRole('tabpanel', { name: /Webhooks/ });
    await webhooks.getByRole('article', { name: /Webhook disabled/ }).waitFor(WAIT);
    await webhooks.getByRole('button', { name: 'Mark all as read' }).click();
    await page.getByText('Marked 1 notification as read.').first().waitFor(WAIT);
    await expect.poll(() => page.getByRole('tab', { name: /Webhooks/ }).textContent(), WAIT).toBe('Webhooks');
    expect(await webhooks.getByText('Unread', { exact: true }).count()).toBe(0);
    expect(await webhooks.getByRole('button', { name: 'Mark all as read' }).isDisabled()).toBe(true);
    await expect.poll(() => nav(page).getByRole('link', { name: /Notifications/ }).textContent(), WAIT).toBe('Notifications 1 unread');
    expect(await page.getByRole('tab', { name: /Tickets/ }).textContent()).toBe('Tickets 1 unread');
    const unread = await prisma.notification.findMany({ where: { userId: stack.workspace.admin.id, readAt: null }, select: { kind: true } });
    expect(unread).toEqual([{ kind: 'ticket.created' }]);
  });

  it('the rate field’s floor is the server’s', async () => {
    await page.goto(`/settings/webhooks/${subscriptionId}`);
    await heading(page, 'Webhook').waitFor(WAIT);
    // Receiving again after the 410, for this and the steps after it.
    stack.receiver.respond(hookPath, { status: 200, body: 'ok' });
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.locator('.card').getByText('Receiving', { exact: true }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit webhook' });
    const rate = dialog.getByLabel(/Deliveries per second at most/);
    await expect.poll(() => rate.getAttribute('min'), WAIT).toBe(String(config.webhooks.minRatePerSecond));
    expect(await dialog.textContent()).toContain(`At least ${config.webhooks.minRatePerSecond} (this service’s minimum)`);
    await rate.fill(String(config.webhooks.minRatePerSecond / 2));
    await dialog.getByRole('button', { name: /Save/ }).click();
    const field = dialog.locator('.field', { has: page.getByLabel(/Deliveries per second at most/) });
    // The server's refusal, on the field: the same number the field states.
    await field.getByText(`Must be at least ${config.webhooks.minRatePerSecond} (this service's minimum).`).waitFor(WAIT);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('the retry schedule field: the server’s bounds stated, a refusal on the field, a shorter schedule saved and shown', async () => {
    await page.goto(`/settings/webhooks/${subscriptionId}`);
    await heading(page, 'Webhook').waitFor(WAIT);
    await page.getByText('Default: 7 attempts, retried after 1 min, 5 min, 30 min, 2 h, 8 h, 24 h').waitFor(WAIT);
    await page.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit webhook' });
    const retries = dialog.getByLabel(/Retry delays in seconds/);
    expect(await retries.inputValue()).toBe('');
    const floor = config.webhooks.retryMinDelaySeconds;
    await expect.poll(() => dialog.textContent(), WAIT).toContain(`each at least ${floor} (this service’s minimum)`);
    const field = dialog.locator('.field', { has: page.getByLabel(/Retry delays in seconds/) });
    // The form's own check, then the server's refusal below the operator's minimum, each on the field.
    await retries.fill('soon');
    await dialog.getByRole('button', { name: /Save/ }).click();
    await field.getByText('Use whole seconds separated by commas').waitFor(WAIT);
    await retries.fill(String(floor - 1));
    await dialog.getByRole('button', { name: /Save/ }).click();
    await field.getByText(new RegExp(`at least ${floor} seconds`)).waitFor(WAIT);
    await retries.fill('60, 300');
    await dialog.getByRole('button', { name: /Save/ }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('3 attempts, retried after 1 min, 5 min').waitFor(WAIT);
    const saved = await prisma.webhookSubscription.findUniqueOrThrow({ where: { id: subscriptionId } });
    expect(saved.retrySchedule).toEqual({ delaysSeconds: [60, 300] });
    // The form shows it again, and an empty field goes back to the default.
    await page.getByRole('button', { name: 'Edit' }).click();
    expect(await dialog.getByLabel(/Retry delays in seconds/).inputValue()).toBe('60, 300');
    await dialog.getByLabel(/Retry delays in seconds/).fill('');
    await dialog.getByRole('button', { name: /Save/ }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('Default: 7 attempts', { exact: false }).waitFor(WAIT);
    expect((await prisma.webhookSubscription.findUniqueOrThrow({ where: { id: subscriptionId } })).retrySchedule).toBeNull();
  });

  for (const width of [1440, 390]) {
    it(`axe-core: the confirmations and the notification tabs at ${width} px`, async () => {
      const { context, page: p } = await stack.newPage(width);
      await signIn(p);
      const report: Record<string, string[]> = {};
      await p.goto(`/settings/webhooks/${subscriptionId}`);
      await heading(p, 'Webhook').waitFor(WAIT);
      await p.locator('.card').getByText('Receiving', { exact: true }).waitFor(WAIT);
      report['webhook'] = await violations(p);
      for (const [button, title] of [['Pause', 'Pause this webhook?'], ['Disable', 'Disable this webhook?']] as const) {
        await p.getByRole('button', { name: button, exact: true }).click();
        await p.getByRole('alertdialog', { name: title }).waitFor(WAIT);
        report[title] = await violations(p);
        await p.keyboard.press('Escape');
        await p.getByRole('alertdialog').waitFor({ state: 'detached' });
      }
      await p.goto('/settings/notifications');
      await p.getByRole('article').first().waitFor(WAIT);
      report['notifications'] = await violations(p);
      await p.getByRole('tab', { name: /Tickets/ }).click();
      await p.getByRole('tabpanel', { name: /Tickets/ }).getByRole('article').first().waitFor(WAIT);
      report['notifications-tickets'] = await violations(p);
      await screenshot(p, `lifecycle-notifications-${width}`);
      expect(Object.fromEntries(Object.entries(report).filter(([, v]) => v.length > 0))).toEqual({});
      await context.close();
    });
  }

  it('logged no errors in the browser along the way', () => {
    expect(stack.browserErrors).toEqual([]);
  });
});
