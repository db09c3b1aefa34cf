// The whole service for browser tests, for real: the HTTP app on a loopback port (the settings
// UI built by Vite, /graphql, /public/v1), the delivery stack (test/support/delivery-stack.ts: the
// outbox relay, a Temporal dev server with a worker running the delivery and recovery workflows),
// an HTTPS webhook receiver on :8443 with its own CA, and
// the OS's Chromium (scripts/provision.sh) driven by playwright-core (never a downloaded browser).
//
// Webhooks to the loopback receiver need WEBHOOK_ALLOW_PRIVATE_TARGETS: the harness hands the
// service that configuration (loadConfig) before anything reads it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { loadConfig } from '../../src/config.ts';
import { prisma } from '../../src/db/db.ts';
import { hashPassword } from '../../src/access/password.ts';
import { ensureWebBuild } from '../../web/build.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { freePort, serveApp } from '../support/http.ts';
import { startDevServerDeliveryStack } from '../support/delivery-stack.ts';
import { provisioned } from '../support/tools.ts';
import { createTestCa, startReceiver, type Receiver } from '../webhooks/receiver.ts';

// The browser's origin is the service's public one: the session's CSRF check compares with it.
const uiPort = await freePort();
loadConfig({ ...process.env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', PUBLIC_BASE_URL: `http://127.0.0.1:${uiPort}/public/v1` });

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
const artifactsDir = fileURLToPath(new URL('./artifacts/', import.meta.url));

export const PASSWORD = 'correct horse battery staple';

export interface UiStack {
  origin: string;
  receiver: Receiver;
  browser: Browser;
  workspace: Awaited<ReturnType<typeof createTestWorkspace>>;
  /** A person of the workspace who can sign in (the admin exists already). */
  addPerson(input: { role: 'agent' | 'admin'; email: string }): Promise<{ email: string; password: string }>;
  /** A REST call with an API key against the running server. */
  rest(method: string, pathname: string, key: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** What the pages logged as errors (console errors, uncaught exceptions, CSP refusals). */
  browserErrors: string[];
  /** A new browser context (own cookies) with a page at this width. */
  newPage(width?: number): Promise<{ context: BrowserContext; page: Page }>;
  /** Lets the subscription fail often enough to pause at its next failure (the real path: 20 in a row). */
  nearPause(subscriptionId: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startUiStack(): Promise<UiStack> {
  const chromiumPath = provisioned('CHROMIUM_PATH'); // before starting anything else
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  try {
    await ensureWebBuild({ quiet: true });

    const tls = createTestCa();
    const receiver = await startReceiver(tls);
    stops.push(() => receiver.close());

    const deliveries = await startDevServerDeliveryStack({ queue: 'ui-deliveries', tls, recover: true });
    stops.push(() => deliveries.stop());
    const workspace = await createTestWorkspace('UI workspace');

    const app = await serveApp(undefined, uiPort);
    stops.push(() => app.close());
    const origin = app.origin;

    const browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS, headless: true });
    stops.push(() => browser.close());

    fs.mkdirSync(artifactsDir, { recursive: true });

    const browserErrors: string[] = [];
    return {
      origin,
      receiver,
      browserErrors,
      browser,
      workspace,
      async addPerson({ role, email }) {
        await prisma.user.create({
          data: {
            workspaceId: workspace.workspace.id,
            userName: email.split('@')[0],
            fullName: role === 'admin' ? 'Second Admin' : 'Agent Smith',
            email,
            roleId: role === 'admin' ? workspace.roles.admin.id : workspace.roles.agent.id,
            isAdmin: role === 'admin',
            passwordHash: await hashPassword(PASSWORD),
          },
        });
        return { email, password: PASSWORD };
      },
      rest: (method, pathname, key, body) => api(method, pathname, { origin, key, body }),
      async newPage(width = 1280) {
        const context = await browser.newContext({ viewport: { width, height: width > 800 ? 900 : 844 }, baseURL: origin });
        await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
        const page = await context.newPage();
        page.on('console', (m) => {
          if (m.type() === 'error') browserErrors.push(`${page.url()}: ${m.text()}`);
        });
        page.on('pageerror', (err) => browserErrors.push(`${page.url()}: ${err.message}`));
        return { context, page };
      },
      async nearPause(subscriptionId) {
        await prisma.webhookSubscription.update({ where: { id: subscriptionId }, data: { consecutiveFailures: 19 } });
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A full-page screenshot into test/ui/artifacts (gitignored). */
export async function screenshot(page: Page, name: string): Promise<string> {
  const file = path.join(artifactsDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

// Evaluated through the DevTools protocol: the page's CSP (script-src 'self') refuses an injected script tag.
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; html: string }[];
}

/** The serious and critical violations axe-core finds on the page as it is now, one line each. */
export async function violations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: object, options: object): Promise<{ violations: Violation[] }> } }).axe;
    // Not the page's content: react-aria's live announcer keeps what it announced (a node labelled
    // by an id, which may be gone) in a visually hidden log until its timeout clears it.
    return (await axe.run({ exclude: [['[data-live-announcer]']] }, { resultTypes: ['violations'] })).violations;
  });
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.html.slice(0, 160)).join(', ')})`);
}

