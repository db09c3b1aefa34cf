// axe-core (the accessibility engine, run inside the page) on every page of the settings UI, at
// a desktop (1440×900) and a phone (390×844) width: no serious or critical violation (issue 34).
// The pages hold real data: a key, a webhook with a delivery in its log, a notification list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot, startUiStack, violations, type UiStack } from './harness.ts';

const WAIT = { timeout: 30_000 };
const hookPath = '/hooks/a11y';

let stack: UiStack;
let subscriptionId: string;

async function signIn(page: Page) {
  await page.goto('/settings/');
  await page.getByLabel('E-mail').fill(stack.workspace.admin.email!);
  await page.getByLabel('Password').fill('correct horse battery staple');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor(WAIT);
}

describe('settings UI: axe-core finds no serious or critical violation', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    stack = await startUiStack();
    stack.receiver.respond(hookPath, { status: 200, body: 'ok' });
    const key = (await stack.workspace.key({ name: 'a11y' })).value;
    const created = await stack.rest('POST', '/webhooks', key, { url: `${stack.receiver.origin}${hookPath}`, events: ['ticket.created'] });
    expect(created.status).toBe(201);
    subscriptionId = created.body.id;
    const boards = await stack.rest('GET', '/boards', key);
    const support = boards.body.data.find((b: { name: string }) => b.name === 'Support');
    const product = support.fields.find((f: { name: string }) => f.name === 'Product').id;
    await stack.rest('POST', '/tickets', key, { boardId: support.id, subject: 'A11y', requesterEmail: 'a@example.com', fields: [{ fieldId: product, value: 'Web' }] });
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
  });

  for (const width of [1440, 390]) {
    it(`every page at ${width} px`, async () => {
      const { context, page } = await stack.newPage(width);
      const report: Record<string, string[]> = {};

      await page.goto('/settings/');
      await page.getByLabel('E-mail').waitFor(WAIT);
      report['sign-in'] = await violations(page);
      await signIn(page);
      report['api-keys'] = await violations(page);

      await page.getByRole('button', { name: 'New key' }).click();
      await page.getByRole('dialog', { name: 'New key' }).waitFor(WAIT);
      report['new-key'] = await violations(page);
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });

      await page.goto('/settings/webhooks');
      await page.getByRole('row', { name: new RegExp(hookPath) }).waitFor(WAIT);
      report['webhooks'] = await violations(page);

      await page.getByRole('button', { name: 'New webhook' }).click();
      await page.getByRole('dialog', { name: 'New webhook' }).waitFor(WAIT);
      report['new-webhook'] = await violations(page);
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });

      await page.goto(`/settings/webhooks/${subscriptionId}`);
      await page.locator('tr.delivery-row').first().waitFor(WAIT);
      report['webhook'] = await violations(page);
      await screenshot(page, `a11y-webhook-${width}`);

      await page.locator('tr.delivery-row').first().getByRole('button', { name: /^Details of/ }).click();
      await page.getByRole('dialog', { name: /delivery$/ }).waitFor(WAIT);
      report['delivery-panel'] = await violations(page);
      await page.keyboard.press('Escape');

      await page.goto('/settings/notifications');
      await page.getByRole('heading', { level: 1, name: 'Notifications' }).waitFor(WAIT);
      report['notifications'] = await violations(page);

      const found = Object.entries(report).filter(([, v]) => v.length > 0);
      expect(Object.fromEntries(found)).toEqual({});
      await context.close();
    });
  }

  it('logged no errors in the browser along the way', () => {
    expect(stack.browserErrors).toEqual([]);
  });
});
