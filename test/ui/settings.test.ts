// The settings UI in headless Chromium against the real service (HTTP app, database, outbox
// relay, Temporal dev server and worker) and a real HTTPS receiver. The steps run in order and
// share one workspace, as a person would use them: each builds on what the previous one made.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { prisma } from '../../src/db/db.ts';
import { screenshot, startUiStack, type UiStack } from './harness.ts';

const WAIT = { timeout: 30_000 };

let stack: UiStack;
let page: Page;
let restKey: string;
let subscriptionId: string;
let firstSecret: string;
let rotatedSecret: string;
const hookPath = '/hooks/ui';

async function signIn(p: Page, email: string, password: string) {
  await p.goto('/settings/');
  await p.getByLabel('E-mail').fill(email);
  await p.getByLabel('Password').fill(password);
  await p.getByRole('button', { name: 'Sign in' }).click();
}

/** Ticks a react-aria checkbox as a person does, on its label (the input itself is visually hidden). */
async function tick(scope: Locator, name: RegExp) {
  await scope.locator('label', { has: scope.page().getByRole('checkbox', { name }) }).click();
  expect(await scope.getByRole('checkbox', { name }).isChecked()).toBe(true);
}

const heading = (p: Page, name: string) => p.getByRole('heading', { level: 1, name, exact: true });
const activeElementInDialog = (p: Page) => p.evaluate(() => !!document.activeElement?.closest('[role="dialog"], [role="alertdialog"]'));
/** No horizontal scrolling at this width: nothing wider than the viewport. */
const fitsWidth = (p: Page) => p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

function verifyWith(secret: string, request: { headers: Record<string, string>; body: string }) {
  return new StandardWebhook(secret.slice('whsec_'.length)).verify(request.body, {
    'webhook-id': request.headers['webhook-id'],
    'webhook-timestamp': request.headers['webhook-timestamp'],
    'webhook-signature': request.headers['webhook-signature'],
  });
}

/**
 * Once the service has logged an attempt like this one (read from the database), the page's
 * clock is moved past the Deliveries panel's 3 s poll, rather than waiting for the poll.
 */
async function onceLogged(where: { eventType: string; status: 'succeeded' | 'failed'; trigger?: 'manual'; since: Date }) {
  const { since, ...rest } = where;
  await expect.poll(() => prisma.deliveryAttempt.count({ where: { subscriptionId, ...rest, attemptedAt: { gte: since } } }), WAIT).toBeGreaterThan(0);
  await page.clock.fastForward(3_000);
}

async function waitForRequests(count: number) {
  const deadline = Date.now() + WAIT.timeout;
  while (stack.receiver.received(hookPath).length < count) {
    if (Date.now() > deadline) throw new Error(`the receiver got ${stack.receiver.received(hookPath).length} requests, expected ${count}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return stack.receiver.received(hookPath);
}

describe('settings UI in Chromium', { timeout: 90_000 }, () => {
  beforeAll(async () => {
    stack = await startUiStack();
    stack.receiver.respond(hookPath, { status: 200, body: 'thanks' });
    restKey = (await stack.workspace.key({ name: 'ticket writer' })).value;
    ({ page } = await stack.newPage(1280));
    // Playwright's clock in the page, running as the real one until a test moves it on past a
    // poll (onceLogged) instead of waiting the poll out (installed before the page sets any timer).
    await page.clock.install();
  }, 240_000);

  // What the page showed when a step failed, beside the other screenshots.
  beforeEach(({ task, onTestFailed }) => {
    onTestFailed(() => screenshot(page, `failed-${task.name.slice(0, 40).replace(/\W+/g, '-')}`).then(() => undefined));
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('signs in; a wrong password is answered with a sentence', async () => {
    await signIn(page, stack.workspace.admin.email!, 'not the password');
    const alert = page.getByRole('alert');
    await alert.waitFor(WAIT);
    expect(await alert.textContent()).toBe('The e-mail or password is wrong, or the account is deactivated.');
    await screenshot(page, 'sign-in-error');

    await page.getByLabel('Password').fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading(page, 'API keys').waitFor(WAIT);
    expect(page.url()).toBe(`${stack.origin}/settings/apps/api-keys`);
    expect(await page.getByRole('navigation', { name: 'Settings' }).getByRole('link').allTextContents()).toEqual(['API keys', 'Webhooks', 'Notifications', 'Boards', 'Roles', 'People', 'Audit log']);
  });

  it('creates a key and shows its value once, with a copy button', async () => {
    await page.getByRole('button', { name: 'New key' }).click();
    const dialog = page.getByRole('dialog', { name: 'New key' });
    await dialog.waitFor(WAIT);
    expect(await activeElementInDialog(page)).toBe(true);

    await dialog.getByLabel('Name').fill('Zapier');
    await dialog.getByRole('button', { name: /Role/ }).click();
    await page.getByRole('option', { name: 'Agent' }).click();
    await tick(dialog, /tickets:read/);
    await tick(dialog, /tickets:write/);
    await dialog.getByRole('button', { name: 'Create key' }).click();

    // The same dialog, now named by its new heading.
    const created = page.getByRole('dialog', { name: 'Key “Zapier” created' });
    await created.waitFor(WAIT);
    const value = await created.getByLabel('Key value').inputValue();
    expect(value).toMatch(/^svc_[A-Za-z0-9]{10}_[A-Za-z0-9_-]{43}$/);
    expect(await created.getByText('It is shown only this once').count()).toBe(1);
    await created.getByRole('button', { name: 'Copy' }).click();
    await created.getByText('Copied to the clipboard.').waitFor(WAIT);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(value);
    await screenshot(page, 'api-key-created');

    // The value works, acts with the chosen role and scopes, and is gone once the dialog closes.
    const me = await stack.rest('GET', '/me', value);
    expect(me.status).toBe(200);
    expect(me.body.apiKey).toMatchObject({ name: 'Zapier', scopes: ['tickets:read', 'tickets:write'] });

    await created.getByRole('button', { name: 'Done' }).click();
    await created.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(value);
    await page.reload();
    const row = page.getByRole('row', { name: /Zapier/ });
    await row.waitFor(WAIT);
    expect(await page.content()).not.toContain(value);
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells.slice(0, 4)).toEqual([value.slice(0, 14), 'Agent', 'tickets:readtickets:write', 'Never']);
    await screenshot(page, 'api-keys');
  });

  it('revokes a key after confirmation', async () => {
    const row = page.getByRole('row', { name: /Zapier/ });
    const prefix = (await row.locator('code').first().textContent())!;
    await row.getByRole('button', { name: 'Revoke Zapier' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Revoke the key “Zapier”?' });
    await confirm.waitFor(WAIT);
    // The safe choice has the focus.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await row.getByText(/^Revoked/).waitFor(WAIT);
    expect(await page.getByRole('status').filter({ hasText: 'The key Zapier is revoked.' }).count()).toBe(1);
    expect(prefix).toMatch(/^svc_/);
  });

  it('creates a webhook to the HTTPS receiver; a refused URL is explained on the field', async () => {
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Webhooks' }).click();
    await heading(page, 'Webhooks').waitFor(WAIT);
    await page.getByRole('button', { name: 'New webhook' }).click();
    const dialog = page.getByRole('dialog', { name: 'New webhook' });
    await dialog.waitFor(WAIT);

    await dialog.getByLabel('Endpoint URL').fill('http://hooks.example.com/tickets');
    await tick(dialog, /ticket\.created/);
    await dialog.getByRole('button', { name: 'Create webhook' }).click();
    const urlField = dialog.getByRole('textbox', { name: 'Endpoint URL' });
    await dialog.locator('.react-aria-FieldError').first().waitFor(WAIT);
    const message = (await dialog.locator('.react-aria-FieldError').first().textContent())!;
    expect(message).toMatch(/^[A-Z].*https.*\.$/);
    expect(message).not.toContain('{');
    expect(await urlField.getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'webhook-url-refused');

    await urlField.fill(`${stack.receiver.origin}${hookPath}`);
    await dialog.getByRole('button', { name: 'Create webhook' }).click();
    const created = page.getByRole('dialog', { name: 'Webhook created' });
    await created.waitFor(WAIT);
    firstSecret = await created.getByLabel('Signing secret').inputValue();
    expect(firstSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    // Done waits until the secret was copied or kept some other way.
    expect(await created.getByRole('button', { name: 'Done' }).isDisabled()).toBe(true);
    await tick(created, /kept the value somewhere safe/);
    await created.getByRole('button', { name: 'Done' }).click();
    await created.waitFor({ state: 'detached' });

    const row = page.getByRole('row', { name: new RegExp(stack.receiver.origin.replaceAll('.', '\\.')) });
    await row.waitFor(WAIT);
    expect(await row.getByText('Receiving').count()).toBe(1);
    await screenshot(page, 'webhooks');
    await row.getByRole('link').click();
    await heading(page, 'Webhook').waitFor(WAIT);
    subscriptionId = /\/settings\/webhooks\/(wh_\w+)$/.exec(page.url())![1]!;
    await page.getByText('No deliveries yet.').waitFor(WAIT);
  });

  it('shows the delivery of a new ticket in the Deliveries panel without a reload', async () => {
    const since = new Date();
    const boards = await stack.rest('GET', '/boards', restKey);
    const support = boards.body.data.find((b: { name: string }) => b.name === 'Support');
    const product = support.fields.find((f: { name: string }) => f.name === 'Product').id;
    const ticket = await stack.rest('POST', '/tickets', restKey, {
      boardId: support.id,
      subject: 'Printer on fire',
      requesterEmail: 'customer@example.com',
      fields: [{ fieldId: product, value: 'Web' }],
    });
    expect(ticket.status).toBe(201);

    // One dense row per delivery: status, event, HTTP code, attempts, last try, next try.
    const row = page.locator('tr.delivery-row', { hasText: 'ticket.created' }).first();
    await onceLogged({ eventType: 'ticket.created', status: 'succeeded', since });
    await row.getByText('Succeeded').waitFor(WAIT);
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells[0]).toBe('Succeeded');
    expect(cells[1]).toBe('200');
    expect(cells[2]).toBe('1 Scheduled');
    expect(cells[4]).toBe('None');

    // The side panel: each attempt with its response, and the payload.
    await row.getByRole('button', { name: /^Details of ticket\.created event evt_/ }).click();
    const panel = page.getByRole('dialog', { name: 'ticket.created delivery' });
    await panel.waitFor(WAIT);
    const attempt = panel.locator('.attempt').first();
    const facts = await attempt.locator('dd').allTextContents();
    expect(facts[0]).toBe('200');
    expect(facts[1]).toMatch(/^\d+ ms$/);
    await attempt.getByText('Response').click();
    expect(await attempt.locator('pre').first().textContent()).toBe('thanks');
    const payload = (await panel.getByLabel(/^Payload of event/).textContent())!;
    expect(JSON.parse(payload)).toMatchObject({ type: 'ticket.created', data: { id: ticket.body.id, subject: 'Printer on fire' } });
    expect(payload).toContain('\n  "type": "ticket.created"');
    await page.locator('.toast-empty').waitFor({ state: 'attached', ...WAIT });
    await screenshot(page, 'webhook-deliveries');

    const [request] = await waitForRequests(1);
    expect(JSON.parse(request.body).data.id).toBe(ticket.body.id);
    verifyWith(firstSecret, request);
  });

  it('resends a delivery from the side panel: a manual attempt with the same webhook-id, grouped under its delivery', async () => {
    const panel = page.getByRole('dialog', { name: 'ticket.created delivery' });
    await panel.getByRole('button', { name: /^Resend ticket\.created event/ }).click();
    await panel.locator('.attempt', { hasText: 'Manual resend' }).getByText('Succeeded').waitFor(WAIT);
    const requests = await waitForRequests(2);
    expect(requests[1].headers['webhook-id']).toBe(requests[0].headers['webhook-id']);
    expect(requests[1].body).toBe(requests[0].body);
    await screenshot(page, 'webhook-delivery-panel');
    await panel.getByRole('button', { name: 'Close' }).click();
    await panel.waitFor({ state: 'detached' });
    // The log may show the attempt (it polls) before the mutation's answer puts up the notice.
    await page.getByRole('status').filter({ hasText: 'Resent: the endpoint answered HTTP 200.' }).waitFor(WAIT);
    // One row for the delivery, now at attempt 2, the first attempt grouped under it.
    const delivery = page.locator('tbody.delivery', { hasText: 'ticket.created' });
    await delivery.locator('tr.delivery-row').getByText('2 Manual resend').waitFor(WAIT);
    expect(await delivery.count()).toBe(1);
    expect(await delivery.locator('tr.retry-row').allTextContents()).toEqual([expect.stringMatching(/Succeeded.*attempt 1 · Scheduled/)]);
    await screenshot(page, 'webhook-deliveries-grouped');
  });

  it('rotates the secret (explaining the 24-hour window) and sends a test event signed with both secrets', async () => {
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Rotate the signing secret?' });
    await dialog.waitFor(WAIT);
    expect(await dialog.textContent()).toContain('For the next 24 hours each delivery also carries the signature made with the old secret');
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    const shown = page.getByRole('alertdialog', { name: 'New signing secret' });
    await shown.waitFor(WAIT);
    rotatedSecret = await shown.getByLabel('New signing secret').inputValue();
    expect(rotatedSecret).toMatch(/^whsec_/);
    expect(rotatedSecret).not.toBe(firstSecret);
    await screenshot(page, 'webhook-secret-rotated');
    await shown.getByRole('button', { name: 'Copy' }).click();
    await shown.getByRole('button', { name: 'Done' }).click();
    await shown.waitFor({ state: 'detached' });

    const since = new Date();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await onceLogged({ eventType: 'webhook.test', status: 'succeeded', since });
    await page.locator('tr.delivery-row', { hasText: 'webhook.test' }).getByText('Succeeded').waitFor(WAIT);
    const test = (await waitForRequests(3))[2];
    expect(JSON.parse(test.body).type).toBe('webhook.test');
    expect(test.headers['webhook-signature'].split(' ')).toHaveLength(2);
    verifyWith(rotatedSecret, test);
    verifyWith(firstSecret, test);

    // The filters narrow the log to what was asked for.
    await page.getByRole('button', { name: /Event type/ }).click();
    await page.getByRole('option', { name: 'webhook.test' }).click();
    await page.locator('tr.delivery-row', { hasText: 'ticket.created' }).waitFor({ state: 'detached', ...WAIT });
    await page.locator('tr.delivery-row', { hasText: 'webhook.test' }).waitFor(WAIT);
    expect(await page.locator('tr.delivery-row th button').allTextContents()).toEqual(['webhook.test']);

    // Search by event id: only that event's delivery.
    const eventId = (await page.locator('tr.delivery-row .event-id').first().textContent())!;
    await page.getByRole('button', { name: /Event type/ }).click();
    await page.getByRole('option', { name: 'Any event' }).click();
    await page.locator('tr.delivery-row', { hasText: 'ticket.created' }).waitFor(WAIT);
    await page.getByRole('search').getByLabel('Event id').fill(eventId);
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await page.locator('tr.delivery-row', { hasText: 'ticket.created' }).waitFor({ state: 'detached', ...WAIT });
    // The old rows go before the search's answer comes: wait for its row, then read the list.
    await page.locator('tr.delivery-row .event-id', { hasText: eventId }).waitFor(WAIT);
    expect(await page.locator('tr.delivery-row .event-id').allTextContents()).toEqual([eventId]);
    await page.getByRole('search').getByRole('button', { name: 'Show all events' }).click();
    await page.locator('tr.delivery-row', { hasText: 'ticket.created' }).waitFor(WAIT);
    await page.getByRole('button', { name: /Event type/ }).click();
    await page.getByRole('option', { name: 'webhook.test' }).click();
    await page.locator('tr.delivery-row', { hasText: 'ticket.created' }).waitFor({ state: 'detached', ...WAIT });
  });

  it('shows the pause notice with a link to the subscription, where Resume brings it back', async () => {
    await stack.nearPause(subscriptionId);
    stack.receiver.respond(hookPath, { status: 500, body: 'down' });
    const boards = await stack.rest('GET', '/boards', restKey);
    const support = boards.body.data.find((b: { name: string }) => b.name === 'Support');
    const product = support.fields.find((f: { name: string }) => f.name === 'Product').id;
    await stack.rest('POST', '/tickets', restKey, { boardId: support.id, subject: 'Second', requesterEmail: 'c@example.com', fields: [{ fieldId: product, value: 'Web' }] });
    await page.getByRole('button', { name: /Event type/ }).click();
    await page.getByRole('option', { name: 'Any event' }).click();
    // Paused by the service (read from the database): the page's clock is moved past its 5 s poll.
    const condition = async () => (await prisma.webhookSubscription.findUniqueOrThrow({ where: { id: subscriptionId } })).condition;
    await expect.poll(condition, WAIT).toBe('paused');
    await page.clock.fastForward(5_000);
    await page.getByText('Paused', { exact: true }).first().waitFor(WAIT);

    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Notifications' }).click();
    await heading(page, 'Notifications').waitFor(WAIT);
    const notice = page.getByRole('article', { name: /Webhook paused/ });
    await notice.waitFor(WAIT);
    expect(await notice.textContent()).toContain('failed 20 times in a row');
    await screenshot(page, 'notifications');
    await notice.getByRole('link', { name: 'Open it: Webhook paused' }).click();
    await heading(page, 'Webhook').waitFor(WAIT);
    expect(page.url()).toBe(`${stack.origin}/settings/webhooks/${subscriptionId}`);

    stack.receiver.respond(hookPath, { status: 200, body: 'back' });
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('.card').getByText('Receiving', { exact: true }).waitFor(WAIT);
    expect(await page.getByRole('button', { name: 'Resume' }).count()).toBe(0);
  });

  it('recovers the deliveries that failed in a chosen period: manual attempts with the same webhook-id', async () => {
    stack.receiver.respond(hookPath, { status: 503, body: 'down again' });
    const before = stack.receiver.received(hookPath).length;
    const since = new Date();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await onceLogged({ eventType: 'webhook.test', status: 'failed', since });
    await page.locator('tr.delivery-row[data-status="failed"]', { hasText: 'webhook.test' }).first().waitFor(WAIT);
    const failed = (await waitForRequests(before + 1))[before];

    stack.receiver.respond(hookPath, { status: 200, body: 'recovered' });
    await page.getByRole('button', { name: 'Recover failed deliveries' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Recover failed deliveries?' });
    await dialog.waitFor(WAIT);
    await dialog.getByRole('button', { name: /Failed in/ }).click();
    await page.getByRole('option', { name: 'From a time I choose' }).click();
    // Half an hour ago, in the browser's local time as the picker shows it.
    const from = await page.evaluate(() => {
      const d = new Date(Date.now() - 30 * 60_000);
      const pad = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
    });
    await dialog.getByLabel('From', { exact: true }).fill(from);
    // It says how many it will re-send: at least the test event that just failed.
    await dialog.getByRole('status').filter({ hasText: /^\d+ deliver(y|ies) failed in this period: .* re-sent unless/ }).waitFor(WAIT);
    await screenshot(page, 'webhook-recover');
    await dialog.getByRole('button', { name: 'Recover' }).click();

    const started = page.getByRole('alertdialog', { name: 'Recovery started' });
    await started.waitFor(WAIT);
    expect(await started.textContent()).toMatch(/Every delivery that failed between .+ and .+ is being sent again/);
    await page.getByRole('status').filter({ hasText: 'Recovery started' }).waitFor(WAIT);
    await started.getByRole('button', { name: 'Done' }).click();
    await started.waitFor({ state: 'detached' });

    await onceLogged({ eventType: 'webhook.test', status: 'succeeded', trigger: 'manual', since });
    await page.locator('tr.delivery-row[data-status="succeeded"]', { hasText: 'Manual resend' }).filter({ hasText: 'webhook.test' }).first().waitFor(WAIT);
    // Whatever else failed in that hour (the ticket of the pause step, if its retry was not due yet) is re-sent too.
    await waitForRequests(before + 2);
    const resent = stack.receiver.received(hookPath).slice(before + 1).filter((r) => r.headers['webhook-id'] === failed.headers['webhook-id']);
    expect(resent).toHaveLength(1);
    expect(resent[0].body).toBe(failed.body);
  });

  it('works with the keyboard: dialogs take focus, Escape closes them and focus returns', async () => {
    await page.goto('/settings/apps/api-keys');
    const newKey = page.getByRole('button', { name: 'New key' });
    await newKey.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'New key' }).waitFor(WAIT);
    // Focus moves when the dialog has mounted; wait for it rather than sample one instant.
    await expect.poll(() => page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name)).toBe('name');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('New key');
  });

  it('fits a 390 px wide screen', async () => {
    const { context, page: phone } = await stack.newPage(390);
    await signIn(phone, stack.workspace.admin.email!, 'correct horse battery staple');
    await heading(phone, 'API keys').waitFor(WAIT);
    await phone.getByRole('row', { name: /Zapier/ }).waitFor(WAIT);
    expect(await fitsWidth(phone)).toBe(true);
    await screenshot(phone, 'api-keys-390');
    await phone.goto(`/settings/webhooks/${subscriptionId}`);
    await phone.locator('tr.delivery-row').first().waitFor(WAIT);
    expect(await fitsWidth(phone)).toBe(true);
    await screenshot(phone, 'webhook-deliveries-390');
    await context.close();
  });

  it('does not let a non-administrator reach the keys page', async () => {
    const agent = await stack.addPerson({ role: 'agent', email: `agent-${Date.now()}@example.test` });
    const { context, page: agentPage } = await stack.newPage(1280);
    await signIn(agentPage, agent.email, agent.password);
    await heading(agentPage, 'Notifications').waitFor(WAIT);
    expect(await agentPage.getByRole('navigation', { name: 'Settings' }).getByRole('link').allTextContents()).toEqual(['Notifications']);

    await agentPage.goto('/settings/apps/api-keys');
    await heading(agentPage, 'Not available').waitFor(WAIT);
    expect(await agentPage.getByRole('alert').textContent()).toBe(
      'Your role does not allow managing API keys. Ask a workspace administrator if you need access.',
    );
    expect(await agentPage.getByRole('table').count()).toBe(0);
    await screenshot(agentPage, 'non-admin-keys');

    // The server refuses too, whatever the page shows: the session asks GraphQL directly.
    const answer = await agentPage.evaluate(async () => {
      const viewer = await (await fetch('/graphql?query=' + encodeURIComponent('{ viewer { csrfToken } }'))).json();
      const res = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': viewer.data.viewer.csrfToken },
        body: JSON.stringify({ query: '{ apiKeys { edges { node { id } } } }' }),
      });
      return res.json();
    });
    expect(answer.errors[0].extensions.code).toBe('forbidden');
    await context.close();
  });

  it('edits the webhook, then deletes it after confirmation', async () => {
    await page.goto(`/settings/webhooks/${subscriptionId}`);
    await heading(page, 'Webhook').waitFor(WAIT);
    await page.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit webhook' });
    await dialog.waitFor(WAIT);
    expect(await dialog.getByLabel('Endpoint URL').inputValue()).toBe(`${stack.receiver.origin}${hookPath}`);
    // The field filter is offered once ticket.updated is chosen: the ticket's fields and the boards' custom fields.
    const fieldFilter = dialog.getByRole('group', { name: 'Updates of these fields only' });
    expect(await fieldFilter.count()).toBe(0);
    await tick(dialog, /ticket\.updated/);
    await tick(fieldFilter, /^Priority$/);
    await tick(fieldFilter, /^Product \(Support\)$/);
    // The operational events are offered beside the ticket events.
    await tick(dialog, /webhook\.delivery_failed/);
    // Thin payloads: ids, version and a link instead of the ticket.
    await dialog.getByRole('button', { name: /Payload/ }).click();
    await page.getByRole('option', { name: /^Thin/ }).click();
    await dialog.getByText(/carry no ticket content/).waitFor(WAIT);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('.facts dd').getByText('ticket.created, ticket.updated, webhook.delivery_failed').waitFor(WAIT);
    const boards = await stack.rest('GET', '/boards', restKey);
    const product = boards.body.data.find((b: { name: string }) => b.name === 'Support').fields.find((f: { name: string }) => f.name === 'Product').id;
    const saved = await stack.rest('GET', `/webhooks/${subscriptionId}`, restKey);
    expect(saved.body).toMatchObject({ events: ['ticket.created', 'ticket.updated', 'webhook.delivery_failed'], fields: ['priority', product], payload: 'thin' });
    await page.locator('.facts dd').getByText(/^Thin/).waitFor(WAIT);
    // Custom fields by name, not by id.
    await page.locator('.facts dd').getByText('Priority, Product (Support)').waitFor(WAIT);

    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Delete this webhook?' });
    await confirm.getByRole('button', { name: 'Delete webhook' }).click();
    await heading(page, 'Webhooks').waitFor(WAIT);
    await page.getByText('No webhooks yet.').waitFor(WAIT);
    expect(page.url()).toBe(`${stack.origin}/settings/webhooks`);
  });

  it('logged no errors in the browser along the way', () => {
    expect(stack.browserErrors).toEqual([]);
  });
});
