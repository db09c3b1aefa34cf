// The settings UI as an administrator's daily tool (issue 34), in headless Chromium against the
// real service: forms that say what is missing before sending, one-time secrets that a stray click
// or Escape cannot lose. The steps share one workspace and run in order.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { prisma } from '../../src/db/db.ts';
import { screenshot, startUiStack, type UiStack } from './harness.ts';

const WAIT = { timeout: 30_000 };

let stack: UiStack;
let page: Page;
const hookPath = '/hooks/admin-tools';

async function tick(scope: Locator, name: RegExp) {
  await scope.locator('label', { has: scope.page().getByRole('checkbox', { name }) }).click();
  expect(await scope.getByRole('checkbox', { name }).isChecked()).toBe(true);
}
const heading = (p: Page, name: string) => p.getByRole('heading', { level: 1, name, exact: true });

/** Escape, then a click on the overlay's corner: neither may close a dialog showing a secret. */
async function expectStaysOpen(dialog: Locator) {
  await page.keyboard.press('Escape');
  await page.mouse.click(5, 5);
  // Give a closing dialog its time to go, then it must still be there.
  await page.waitForTimeout(300);
  expect(await dialog.isVisible()).toBe(true);
}

describe('settings UI: the administrator’s daily tool', { timeout: 90_000 }, () => {
  beforeAll(async () => {
    stack = await startUiStack();
    stack.receiver.respond(hookPath, { status: 200, body: 'ok' });
    ({ page } = await stack.newPage(1440));
    // Playwright's clock in the page, running as the real one until a test moves it on past a
    // poll instead of waiting the poll out (installed before the page sets any timer).
    await page.clock.install();
    await page.goto('/settings/');
    await page.getByLabel('E-mail').fill(stack.workspace.admin.email!);
    await page.getByLabel('Password').fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading(page, 'API keys').waitFor(WAIT);
  }, 240_000);

  beforeEach(({ task, onTestFailed }) => {
    onTestFailed(() => screenshot(page, `failed-admin-${task.name.slice(0, 40).replace(/\W+/g, '-')}`).then(() => undefined));
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('the key form says "Choose a role" before sending; a server field error shows beside its field', async () => {
    const sent: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && (r.postData() ?? '').includes('CreateApiKey')) sent.push(r.postData()!);
    });
    await page.getByRole('button', { name: 'New key' }).click();
    const dialog = page.getByRole('dialog', { name: 'New key' });
    await dialog.waitFor(WAIT);
    await dialog.getByLabel('Name').fill('Nightly export');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await dialog.getByText('Choose a role.').waitFor(WAIT);
    await dialog.getByText('Choose at least one scope.').waitFor(WAIT);
    expect(sent).toEqual([]);
    // Beside its field: the message is the Role field's own error, and the field says it is invalid.
    const roleField = dialog.locator('.field', { has: page.getByText('Choose a role.') });
    expect(await roleField.getByRole('button', { name: /Role/ }).count()).toBe(1);
    await screenshot(page, 'api-key-choose-role');

    await dialog.getByRole('button', { name: /Role/ }).click();
    await page.getByRole('option', { name: 'Agent' }).click();
    await tick(dialog, /tickets:read/);
    expect(await dialog.getByText('Choose a role.').count()).toBe(0);
    expect(await dialog.getByText('Choose at least one scope.').count()).toBe(0);

    // A day in the past: the server refuses it, and says so on the Expires field.
    const yesterday = await page.evaluate(() => new Date(Date.now() - 86_400_000).toLocaleDateString('en-CA'));
    await dialog.getByLabel('Expires (optional)').fill(yesterday);
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const expiresField = dialog.locator('.field', { has: page.getByLabel('Expires (optional)') });
    await expiresField.getByText('Must be in the future.').waitFor(WAIT);
    expect(sent).toHaveLength(1);
    expect(await page.getByText('Something went wrong').count()).toBe(0);
    await dialog.getByLabel('Expires (optional)').fill('');

    await dialog.getByRole('button', { name: 'Create key' }).click();
    const created = page.getByRole('dialog', { name: 'Key “Nightly export” created' });
    await created.waitFor(WAIT);
  });

  it('the new key dialog stays open on Escape and outside clicks until the value is copied', async () => {
    const created = page.getByRole('dialog', { name: 'Key “Nightly export” created' });
    const done = created.getByRole('button', { name: 'Done' });
    expect(await done.isDisabled()).toBe(true);
    await expectStaysOpen(created);
    await created.getByRole('button', { name: 'Copy' }).click();
    await created.getByText('Copied to the clipboard.').waitFor(WAIT);
    await expectStaysOpen(created);
    await done.click();
    await created.waitFor({ state: 'detached' });
  });

  it('the new webhook’s secret dialog stays open until the person confirms they kept it', async () => {
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Webhooks' }).click();
    await heading(page, 'Webhooks').waitFor(WAIT);
    await page.getByRole('button', { name: 'New webhook' }).click();
    const dialog = page.getByRole('dialog', { name: 'New webhook' });
    await dialog.getByLabel('Endpoint URL').fill(`${stack.receiver.origin}${hookPath}`);
    await tick(dialog, /ticket\.created/);
    await dialog.getByRole('button', { name: 'Create webhook' }).click();
    const created = page.getByRole('dialog', { name: 'Webhook created' });
    await created.waitFor(WAIT);
    await expectStaysOpen(created);
    expect(await created.getByRole('button', { name: 'Done' }).isDisabled()).toBe(true);
    await tick(created, /kept the value somewhere safe/);
    await created.getByRole('button', { name: 'Done' }).click();
    await created.waitFor({ state: 'detached' });
  });

  it('the rotated secret’s dialog stays open on Escape and outside clicks', async () => {
    await page.getByRole('row', { name: new RegExp(hookPath) }).getByRole('link').click();
    await heading(page, 'Webhook').waitFor(WAIT);
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('alertdialog', { name: 'Rotate the signing secret?' }).getByRole('button', { name: 'Rotate secret' }).click();
    const shown = page.getByRole('alertdialog', { name: 'New signing secret' });
    await shown.waitFor(WAIT);
    await expectStaysOpen(shown);
    await shown.getByRole('button', { name: 'Copy' }).click();
    await shown.getByRole('button', { name: 'Done' }).click();
    await shown.waitFor({ state: 'detached' });
  });

  it('shows a failing endpoint as Failing, with its success rate, last error and backlog, on the detail page and the list', async () => {
    const card = page.locator('.card');
    await card.getByText('Receiving', { exact: true }).waitFor(WAIT);
    stack.receiver.respond(hookPath, { status: 500, body: 'down' });
    const before = stack.receiver.received(hookPath).length;
    for (let i = 1; i <= 3; i++) {
      await page.getByRole('button', { name: 'Send test event' }).click();
      await expect.poll(() => stack.receiver.received(hookPath).length, WAIT).toBeGreaterThanOrEqual(before + i);
    }
    // Three failed attempts in a row (FAILING_AFTER): no longer the green "Receiving". The page
    // learns of it from its 5 s poll: once the service has counted the three (read from the
    // database), the page's clock is moved past the poll rather than waiting for it.
    const inARow = async () => (await prisma.webhookSubscription.findFirstOrThrow({ where: { url: { endsWith: hookPath } } })).consecutiveFailures;
    await expect.poll(inARow, WAIT).toBeGreaterThanOrEqual(3);
    await page.clock.fastForward(5_000);
    await card.getByText('Failing', { exact: true }).waitFor(WAIT);
    expect(await card.textContent()).toMatch(/The last \d+ attempts failed in a row/);
    const facts = async (scope: Locator) => {
      const names = await scope.locator('dt').allTextContents();
      const values = await scope.locator('dd').allTextContents();
      return Object.fromEntries(names.map((n, i) => [n, values[i]]));
    };
    await expect.poll(async () => (await facts(card.locator('dl').first()))['Last error'], WAIT).toMatch(/^HTTP 500/);
    const detail = await facts(card.locator('dl').first());
    expect(detail['Success, last 24 hours']).toMatch(/^0% of \d+$/);
    expect(detail['Last delivery']).toMatch(/failed|pending/);
    expect(detail['Backlog']).toMatch(/^(Nothing waits|\d+ waiting)/);
    expect(detail['In flight']).toMatch(/^\d+ of \d+/);
    expect(detail['Rate']).toBe('No limit');
    expect(detail['Order']).toBe('Concurrent: oldest event first');
    await screenshot(page, 'webhook-failing');

    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Webhooks' }).click();
    const row = page.getByRole('row', { name: new RegExp(hookPath) });
    await row.getByText('Failing', { exact: true }).waitFor(WAIT);
    await expect.poll(async () => (await facts(row.locator('dl')))['Last error'], WAIT).toMatch(/^HTTP 500/);
    expect((await facts(row.locator('dl')))['Success, last 24 hours']).toMatch(/^0% of \d+$/);
    await screenshot(page, 'webhooks-failing');
    stack.receiver.respond(hookPath, { status: 200, body: 'ok' });
  });

  it('says what is wrong in plain sentences: an https address, at least one event', async () => {
    const sent: string[] = [];
    const onRequest = (r: { method(): string; postData(): string | null }) => {
      if (r.method() === 'POST' && (r.postData() ?? '').includes('CreateWebhookSubscription')) sent.push(r.postData()!);
    };
    page.on('request', onRequest);
    await page.getByRole('button', { name: 'New webhook' }).click();
    const dialog = page.getByRole('dialog', { name: 'New webhook' });
    await dialog.getByLabel('Endpoint URL').fill('http://hooks.example.com/tickets');
    await dialog.getByRole('button', { name: 'Create webhook' }).click();
    const urlField = dialog.locator('.field', { has: page.getByRole('textbox', { name: 'Endpoint URL' }) });
    await urlField.getByText('Use an https:// address without spaces, for example https://example.com/webhooks.').waitFor(WAIT);
    await dialog.locator('.field', { has: page.getByRole('checkbox', { name: /ticket\.created/ }) }).getByText('Choose at least one event.').waitFor(WAIT);
    expect(sent).toEqual([]);

    // The server's own rule (a space in the path), in the same words, never the validator's.
    await dialog.getByLabel('Endpoint URL').fill('https://hooks.example.com/a b');
    await tick(dialog, /ticket\.created/);
    await dialog.getByRole('button', { name: 'Create webhook' }).click();
    await dialog.getByRole('alert').waitFor(WAIT);
    expect(sent).toHaveLength(1);
    await urlField.getByText('Use an https:// address without spaces, for example https://example.com/webhooks.').waitFor(WAIT);
    const text = (await dialog.textContent())!;
    expect(text).not.toMatch(/Too small|<host>|expected/);
    await screenshot(page, 'webhook-plain-messages');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    page.off('request', onRequest);
  });

  it('explains a refused connection and names custom fields by name', async () => {
    await page.getByRole('row', { name: new RegExp(hookPath) }).getByRole('link').click();
    await heading(page, 'Webhook').waitFor(WAIT);
    await page.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit webhook' });
    // Nothing listens there (the receivers use 127.0.0.1–9): the connection is refused.
    await dialog.getByLabel('Endpoint URL').fill('https://127.0.0.250:8443/nobody');
    await tick(dialog, /ticket\.updated/);
    await tick(dialog.getByRole('group', { name: 'Updates of these fields only' }), /^Product \(Support\)$/);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('.facts dd').getByText('Product (Support)', { exact: true }).waitFor(WAIT);
    expect(await page.locator('.facts dd', { hasText: /fld_/ }).count()).toBe(0);

    await page.getByRole('button', { name: 'Send test event' }).click();
    const refused = page.locator('tr.delivery-row', { has: page.getByRole('cell', { name: 'No answer', exact: true }) }).first();
    await refused.waitFor(WAIT);
    await refused.getByRole('button', { name: /^Details of/ }).click();
    const panel = page.getByRole('dialog', { name: /delivery$/ });
    const error = panel.locator('.attempt-error', { hasText: 'refused the connection' }).first();
    await error.waitFor(WAIT);
    expect(await error.textContent()).toMatch(/^The endpoint refused the connection: nothing listens at that address and port\. \(.*ECONNREFUSED.*\)$/);
    await screenshot(page, 'webhook-connection-refused');
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    await expect.poll(() => page.locator('.card dd').filter({ hasText: 'refused the connection' }).count(), WAIT).toBe(1);
  });

  it('the small items: sign-in errors do not linger, headings have no focus ring, field outlines reach 3:1, event names stay whole at 390 px', async () => {
    const { context, page: phone } = await stack.newPage(390);
    await phone.goto('/settings/');
    await phone.getByLabel('E-mail').fill(stack.workspace.admin.email!);
    await phone.getByLabel('Password').fill('not the password');
    await phone.getByRole('button', { name: 'Sign in' }).click();
    await phone.getByRole('alert').waitFor(WAIT);
    // An empty password: the browser's own message, and the old answer gone.
    await phone.getByLabel('Password').fill('');
    await phone.getByRole('button', { name: 'Sign in' }).click();
    await phone.getByRole('alert').waitFor({ state: 'detached', ...WAIT });

    // Field outlines against white: WCAG 1.4.11 asks 3:1 for a control's boundary.
    const contrast = await phone.getByLabel('E-mail').evaluate((el) => {
      const [r, g, b] = getComputedStyle(el).borderTopColor.match(/\d+/g)!.map(Number).map((c) => c / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
      return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05);
    });
    expect(contrast).toBeGreaterThanOrEqual(3);

    await phone.getByLabel('Password').fill('correct horse battery staple');
    await phone.getByRole('button', { name: 'Sign in' }).click();
    await heading(phone, 'API keys').waitFor(WAIT);
    await phone.getByRole('link', { name: 'Webhooks' }).first().click();
    await heading(phone, 'Webhooks').waitFor(WAIT);
    // The heading takes the focus on navigation, without a ring around it.
    await expect.poll(() => phone.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    expect(await heading(phone, 'Webhooks').evaluate((el) => getComputedStyle(el).boxShadow)).toBe('none');
    // Each event name on one line (none breaks mid-word).
    const tags = phone.locator('.tags li');
    await tags.first().waitFor(WAIT);
    const lines = await tags.evaluateAll((lis) => lis.map((li) => Math.round(li.getBoundingClientRect().height / parseFloat(getComputedStyle(li).lineHeight || '20'))));
    expect(lines.every((n) => n <= 1)).toBe(true);
    await screenshot(phone, 'webhooks-390');
    await context.close();
  });

  it('logged no errors in the browser along the way', () => {
    expect(stack.browserErrors).toEqual([]);
  });
});
