// The webhook form's destination picker in Chromium against the real service: a subscription to an
// Amazon SQS queue made through the form (saving never connects, so no queue is needed; the
// harness allows private targets, so a loopback queue URL as moto serves them is accepted), listed
// and shown with its type and address and never its credentials; an edit that changes the queue
// asks for the credentials again; an edit of something else keeps them; a broker address the
// server refuses is explained on its field.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { prisma } from '../../src/db/db.ts';
import { openSecret } from '../../src/webhooks/message/secret-box.ts';
import { PASSWORD, screenshot, startUiStack, violations, type UiStack } from './harness.ts';

const WAIT = { timeout: 30_000 };
const QUEUE = 'http://127.0.0.1:4566/123456789012/ticket-events.fifo';
const MOVED = 'http://127.0.0.1:4566/123456789012/ticket-events-2.fifo';
const ACCESS_KEY = 'AKIAUITESTEXAMPLE001';
const SECRET_KEY = 'ui-secret-access-key-never-shown';

let stack: UiStack;
let page: Page;
let key: string;
let subscriptionId: string;

async function tick(scope: Locator, name: RegExp) {
  await scope.locator('label', { has: scope.page().getByRole('checkbox', { name }) }).click();
  expect(await scope.getByRole('checkbox', { name }).isChecked()).toBe(true);
}

async function choose(scope: Locator, select: string, option: string) {
  await scope.getByRole('button', { name: new RegExp(select) }).click();
  await scope.page().getByRole('option', { name: option, exact: true }).click();
}

const row = () => prisma.webhookSubscription.findUniqueOrThrow({ where: { id: subscriptionId } });
const credentialsOf = (stored: string) => JSON.parse(openSecret(stored, { subscriptionId, column: 'destinationCredentials' })) as Record<string, string>;
/** The facts list of the subscription's page, label to value. */
const facts = (p: Page) =>
  p.locator('dl.facts', { has: p.locator('dt', { hasText: /^Destination$/ }) }).evaluate((dl) => {
    const out: Record<string, string> = {};
    for (const dt of dl.querySelectorAll('dt')) out[dt.textContent ?? ''] = dt.nextElementSibling?.textContent ?? '';
    return out;
  });

describe('settings UI: a webhook to a queue', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    stack = await startUiStack();
    key = (await stack.workspace.key({ name: 'destinations reader', scopes: ['webhooks:manage'] })).value;
    ({ page } = await stack.newPage(1280));
    await page.goto('/settings/');
    await page.getByLabel('E-mail').fill(stack.workspace.admin.email!);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Settings' }).waitFor(WAIT);
  }, 240_000);

  beforeEach(({ task, onTestFailed }) => {
    onTestFailed(() => screenshot(page, `failed-destination-${task.name.slice(0, 40).replace(/\W+/g, '-')}`).then(() => undefined));
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('creates an SQS subscription through the form and lists it with its type, never its credentials', async () => {
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('button', { name: 'New webhook' }).click();
    const dialog = page.getByRole('dialog', { name: 'New webhook' });
    await dialog.waitFor(WAIT);
    // HTTPS is the default; the picker swaps in the queue's fields.
    expect(await dialog.getByRole('textbox', { name: 'Endpoint URL' }).count()).toBe(1);
    await choose(dialog, 'Destination', 'Amazon SQS queue');
    expect(await dialog.getByRole('textbox', { name: 'Endpoint URL' }).count()).toBe(0);
    await dialog.getByRole('textbox', { name: 'Queue URL' }).fill(QUEUE);
    await dialog.getByRole('textbox', { name: 'Region (optional)' }).fill('eu-west-1');
    await dialog.getByLabel('Access key ID').fill(ACCESS_KEY);
    await tick(dialog, /ticket\.created/);
    // The secret access key is missing: said on its field before anything is sent.
    await dialog.getByRole('button', { name: 'Create webhook' }).click();
    const secretField = dialog.getByLabel('Secret access key');
    await expect.poll(() => secretField.getAttribute('aria-invalid'), WAIT).toBe('true');
    expect(await secretField.getAttribute('type')).toBe('password');
    await secretField.fill(SECRET_KEY);
    await dialog.getByRole('heading', { name: 'New webhook' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'webhook-destination-sqs-form');
    expect(await violations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Create webhook' }).click();

    const created = page.getByRole('dialog', { name: 'Webhook created' });
    await created.waitFor(WAIT);
    expect(await created.locator('code').first().textContent()).toBe(QUEUE);
    await tick(created, /kept the value somewhere safe/);
    await created.getByRole('button', { name: 'Done' }).click();
    await created.waitFor({ state: 'detached' });

    const listed = page.getByRole('row', { name: /ticket-events\.fifo/ });
    await listed.waitFor(WAIT);
    expect(await listed.getByRole('rowheader').textContent()).toBe(`Amazon SQS${QUEUE}`);
    expect(await page.content()).not.toContain(SECRET_KEY);
    await screenshot(page, 'webhooks-with-sqs');

    const answer = await stack.rest('GET', '/webhooks', key);
    const saved = answer.body.data.find((s: { url: string }) => s.url === QUEUE);
    expect(saved.destination).toEqual({ type: 'sqs', queueUrl: QUEUE, region: 'eu-west-1', fifo: true });
    expect(JSON.stringify(answer.body)).not.toContain(SECRET_KEY);
    subscriptionId = saved.id;
    expect(credentialsOf((await row()).destinationCredentials!)).toEqual({ accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY });
  });

  it('shows the destination on the subscription’s page', async () => {
    await page.getByRole('row', { name: /ticket-events\.fifo/ }).getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: 'Webhook' }).waitFor(WAIT);
    await page.locator('.facts dd').getByText('FIFO (in order per ticket)').waitFor(WAIT);
    expect(await facts(page)).toMatchObject({ Destination: 'Amazon SQS', 'Queue URL': QUEUE, Region: 'eu-west-1', 'Queue kind': 'FIFO (in order per ticket)' });
    expect(await page.content()).not.toContain(SECRET_KEY);
    await screenshot(page, 'webhook-sqs-detail');
  });

  it('keeps the credentials when only something else changes, and asks for them again when the queue changes', async () => {
    const before = (await row()).destinationCredentials;
    await page.getByRole('button', { name: 'Edit' }).click();
    let dialog = page.getByRole('dialog', { name: 'Edit webhook' });
    await dialog.waitFor(WAIT);
    expect(await dialog.getByRole('textbox', { name: 'Queue URL' }).inputValue()).toBe(QUEUE);
    expect(await dialog.getByLabel('Secret access key').inputValue()).toBe('');
    await dialog.getByText(/Credentials are never shown\. Leave them empty to keep the saved ones/).waitFor(WAIT);
    await dialog.getByRole('textbox', { name: 'Description (optional)' }).fill('Orders queue');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(async () => (await row()).description, WAIT).toBe('Orders queue');
    expect((await row()).destinationCredentials).toBe(before);

    await page.getByRole('button', { name: 'Edit' }).click();
    dialog = page.getByRole('dialog', { name: 'Edit webhook' });
    await dialog.waitFor(WAIT);
    await dialog.getByRole('textbox', { name: 'Queue URL' }).fill(MOVED);
    await dialog.getByRole('button', { name: 'Save' }).click();
    const again = dialog.locator('.react-aria-FieldError').getByText(/Type it again: credentials are never shown/).first();
    await again.waitFor(WAIT);
    await dialog.getByRole('textbox', { name: 'Queue URL' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'webhook-sqs-credentials-again');
    expect((await row()).destination).toMatchObject({ queueUrl: QUEUE });
    await dialog.getByLabel('Access key ID').fill('AKIAUITESTEXAMPLE002');
    await dialog.getByLabel('Secret access key').fill('the-second-secret');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(async () => (await row()).url, WAIT).toBe(MOVED);
    expect(credentialsOf((await row()).destinationCredentials!)).toEqual({ accessKeyId: 'AKIAUITESTEXAMPLE002', secretAccessKey: 'the-second-secret' });
  });

  it('explains a broker address the server refuses on its field', async () => {
    await page.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit webhook' });
    await dialog.waitFor(WAIT);
    await choose(dialog, 'Destination', 'Apache Kafka topic');
    await dialog.getByRole('textbox', { name: 'Bootstrap brokers' }).fill('kafka.example.com');
    await dialog.getByRole('textbox', { name: 'Topic' }).fill('ticket-events');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const brokers = dialog.getByRole('textbox', { name: 'Bootstrap brokers' });
    await expect.poll(() => brokers.getAttribute('aria-invalid'), WAIT).toBe('true');
    expect(await dialog.getByRole('alert').textContent()).toContain('Bootstrap brokers: ');
    await brokers.scrollIntoViewIfNeeded();
    await screenshot(page, 'webhook-kafka-refused');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await row()).destinationType).toBe('sqs');
  });

  it('logged no errors in the browser along the way', () => {
    expect(stack.browserErrors).toEqual([]);
  });
});
