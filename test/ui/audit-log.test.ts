// The settings UI's Audit log page: an administrator sees the workspace's entries (their own
// sign-in among them) and filters them by action, at a desktop and a phone width, with no serious
// or critical axe-core violation; a person of another role has no such page.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { PASSWORD, screenshot, startUiStack, type UiStack } from './harness.ts';

const WAIT = { timeout: 30_000 };
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let stack: UiStack;

async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: object, options: object): Promise<{ violations: { id: string; impact: string | null; help: string }[] }> } }).axe;
    return (await axe.run({ exclude: [['[data-live-announcer]']] }, { resultTypes: ['violations'] })).violations;
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id}: ${v.help}`);
}

async function signIn(page: Page, email: string) {
  await page.goto('/settings/');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Settings' }).waitFor(WAIT);
}

describe('settings UI: the audit log', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    stack = await startUiStack();
    await stack.workspace.key({ name: 'Seen in the log' });
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
  });

  for (const width of [1440, 390]) {
    it(`shows an administrator the entries and filters them by action at ${width} px`, async () => {
      const { context, page } = await stack.newPage(width);
      await signIn(page, stack.workspace.admin.email!);
      await page.getByRole('link', { name: 'Audit log' }).click();
      await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor(WAIT);
      const table = page.getByRole('table');
      await table.getByText('api_key.created').first().waitFor(WAIT);
      await expect.poll(() => table.getByText('session.signed_in').count(), WAIT).toBeGreaterThan(0);
      expect(await table.getByText(stack.workspace.admin.email!).count()).toBeGreaterThan(0);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `audit-log-${width}`);

      await page.getByRole('button', { name: /Action/ }).click();
      await page.getByRole('option', { name: 'api_key.created' }).click();
      // Both at once: while the filtered page loads the table may be empty for a moment.
      const filtered = async () => ({ signIns: await table.getByText('session.signed_in').count(), keysCreated: (await table.getByText('api_key.created').count()) > 0 });
      await expect.poll(filtered, WAIT).toEqual({ signIns: 0, keysCreated: true });
      expect(await seriousViolations(page)).toEqual([]);
      await context.close();
    });
  }

  it('has no Audit log for a person of another role', async () => {
    const agent = await stack.addPerson({ role: 'agent', email: `agent-audit-${Date.now()}@example.test` });
    const { context, page } = await stack.newPage(1440);
    await signIn(page, agent.email);
    expect(await page.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
    await page.goto('/settings/audit-log');
    await page.getByRole('heading', { level: 1, name: 'Not available' }).waitFor(WAIT);
    expect(stack.browserErrors).toEqual([]);
    await context.close();
  });
});
