// The statistics of the Deliveries panel in Chromium against the real service: the chart is drawn
// on its canvas (uPlot under the page's CSP), and its numbers are on the page as text.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createSubscription, seedAttempts } from '../webhooks/fixtures.ts';
import { PASSWORD, screenshot, startUiStack, type UiStack } from './harness.ts';

const WAIT = { timeout: 30_000 };

let stack: UiStack;
let page: Page;
let subscriptionId: string;

/** Signs in as the workspace's administrator, who lands on the API keys page. */
async function signIn(p: Page) {
  await p.goto('/settings/');
  await p.getByLabel('E-mail').fill(stack.workspace.admin.email!);
  await p.getByLabel('Password').fill(PASSWORD);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('heading', { level: 1, name: 'API keys', exact: true }).waitFor(WAIT);
}

/** The text of the statistics' fact list, as `term: value` pairs. */
async function facts(p: Page): Promise<Record<string, string>> {
  const list = p.locator('.stats-facts');
  const terms = await list.locator('dt').allTextContents();
  const values = await list.locator('dd').allTextContents();
  return Object.fromEntries(terms.map((t, i) => [t, values[i]]));
}

describe('delivery statistics in Chromium', { timeout: 90_000 }, () => {
  beforeAll(async () => {
    stack = await startUiStack();
    // Seeded attempts: the subscription does not listen to the event's type, so the relay sends nothing of its own.
    const subscription = await createSubscription(stack.workspace, { url: 'https://hooks.example.com/stats', events: ['ticket.created'] });
    subscriptionId = subscription.id;
    const now = Date.now();
    // Four attempts, one a minute until a minute ago.
    await seedAttempts(stack.workspace, subscriptionId, [
      [new Date(now - 4 * 60_000), 'succeeded', 100],
      [new Date(now - 3 * 60_000), 'failed', 200],
      [new Date(now - 2 * 60_000), 'succeeded', 300],
      [new Date(now - 1 * 60_000), 'succeeded', 400],
    ], 'ticket.comment_added');
    ({ page } = await stack.newPage(1280));
    await signIn(page);
  }, 240_000);

  beforeEach(({ task, onTestFailed }) => {
    onTestFailed(() => screenshot(page, `failed-stats-${task.name.slice(0, 40).replace(/\W+/g, '-')}`).then(() => undefined));
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('draws the last 24 hours on a canvas and shows the same numbers as text', async () => {
    await page.goto(`/settings/webhooks/${subscriptionId}`);
    const stats = page.getByRole('region', { name: 'Statistics' });
    await stats.locator('.stats-facts').waitFor(WAIT);
    expect(await facts(page)).toEqual({
      Attempts: '4',
      Succeeded: '3',
      Failed: '1',
      'Success rate': '75%',
      'Duration p50': '250 ms',
      'Duration p95': '385 ms',
      'Duration p99': '397 ms',
    });

    const chart = stats.getByRole('img', { name: /^Bar chart of attempts per hour, last 24 hours: 3 succeeded and 1 failed/ });
    const canvas = chart.locator('canvas');
    await canvas.waitFor(WAIT);
    const size = await canvas.evaluate((c: HTMLCanvasElement) => ({ width: c.width, height: c.height }));
    expect(size.width).toBeGreaterThan(300);
    expect(size.height).toBeGreaterThan(100);
    // Something was painted: the bars' colours are among the canvas's pixels.
    const painted = await canvas.evaluate((c: HTMLCanvasElement) => {
      const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      const seen = new Set<string>();
      for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 0) seen.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
      return seen.size;
    });
    expect(painted).toBeGreaterThan(2);

    await stats.getByText('Attempts per hour as a table').click();
    const rows = stats.locator('.stats-table tbody tr');
    expect(await rows.count()).toBe(24);
    const withAttempts = (await rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)))).filter((r) => r[0] !== '0');
    // Seeded minutes ago: all in the current hour, or some in the one before.
    expect(withAttempts.reduce((n, r) => n + Number(r[0]), 0)).toBe(4);
    expect(withAttempts.reduce((n, r) => n + Number(r[2]), 0)).toBe(1);
    await screenshot(page, 'delivery-stats-24h');
  });

  it('switches to daily buckets for 30 days', async () => {
    const stats = page.getByRole('region', { name: 'Statistics' });
    await stats.getByRole('radio', { name: '30 days' }).click();
    await stats.getByText('Attempts per day as a table').waitFor(WAIT);
    expect(await stats.getByRole('radio', { name: '30 days' }).getAttribute('aria-checked')).toBe('true');
    await stats.getByRole('img', { name: /^Bar chart of attempts per day, last 30 days/ }).locator('canvas').waitFor(WAIT);
    expect(await stats.locator('.stats-table tbody tr').count()).toBe(30);
    expect((await facts(page)).Attempts).toBe('4');
  });

  it('fits a 390 px wide screen', async () => {
    const { context, page: phone } = await stack.newPage(390);
    await signIn(phone);
    await phone.goto(`/settings/webhooks/${subscriptionId}`);
    await phone.getByRole('region', { name: 'Statistics' }).locator('canvas').waitFor(WAIT);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await screenshot(phone, 'delivery-stats-390');
    await context.close();
  });

  it('logged no errors in the browser (CSP refusals included)', () => {
    expect(stack.browserErrors).toEqual([]);
  });
});
