// The API reference at /public/v1/docs in Debian's Chromium: Scalar renders the operations and
// the webhooks from our own server alone (no request leaves loopback), without a console error
// (a CSP refusal is one).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS, screenshot } from './harness.ts';
import { provisioned } from '../support/tools.ts';
import { serveApp } from '../support/http.ts';

const WAIT = { timeout: 60_000 };

let app: Awaited<ReturnType<typeof serveApp>>;
let origin: string;
let browser: Browser;

beforeAll(async () => {
  app = await serveApp();
  origin = app.origin;
  browser = await chromium.launch({ executablePath: provisioned('CHROMIUM_PATH'), args: CHROMIUM_ARGS, headless: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('the API reference in Chromium', { timeout: 120_000 }, () => {
  it('renders the operations and the webhooks, calling nothing but our server, without console errors', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: origin });
    const page = await context.newPage();
    const errors: string[] = [];
    const requested: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('request', (r) => requested.push(r.url()));

    const res = await page.goto('/public/v1/docs');
    expect(res?.status()).toBe(200);
    // Scalar renders a tag's operations once its group is opened, as a reader does in the sidebar.
    await page.getByText('Introduction', { exact: true }).first().waitFor(WAIT);
    await page.getByText('Tickets', { exact: true }).first().click();
    await page.getByText('Create a ticket', { exact: true }).first().waitFor(WAIT);
    await page.getByText('Events', { exact: true }).first().click();
    for (const type of ['ticket.created', 'ticket.updated', 'ticket.state_changed', 'ticket.comment_added', 'webhook.test']) {
      await page.getByText(type, { exact: true }).first().waitFor(WAIT);
    }
    // No "test request" client: the reference only reads.
    expect(await page.getByRole('button', { name: /test request/i }).count()).toBe(0);
    await screenshot(page, 'api-reference');

    const network = requested.filter((u) => !u.startsWith('data:') && !u.startsWith('blob:'));
    expect(network.length).toBeGreaterThan(0);
    expect(network.filter((u) => new URL(u).host !== new URL(origin).host)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
