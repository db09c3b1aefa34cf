// Clients generated from the document the service serves, as integrators generate them: Python by
// openapi-python-client, Go by oapi-codegen (both provisioned into .tools by scripts/provision.sh,
// pinned). Each must generate with no warning, then drive a short flow against the service's HTTP
// app on a loopback port (python/flow.py, go/main.go): GET /me, boards, a ticket sent twice with
// one Idempotency-Key, a refusal, paging, a webhook subscription and its delivery log, a
// subscription to a queue changed to a Kafka topic (the destination's oneOf), a bulk job, and the
// administration writes (boards, invitations, people). Every answer
// must parse into the generated model of its status; the flows print fields read from the models,
// and this file compares them with what the service stored and answers.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prisma } from '../../src/db/db.ts';
import { API_SCOPES } from '../../src/access/principal.ts';
import { serveApp } from '../support/http.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { provisioned } from '../support/tools.ts';
import { fromRoot } from '../../src/paths.ts';
import { supportBoard } from '../tickets/helpers.ts';
import { createDelivery } from '../webhooks/fixtures.ts';
import { jobRunner } from '../../src/jobs/job-runner.ts';
import { openSecret } from '../../src/webhooks/message/secret-box.ts';

const run = promisify(execFile);
const here = import.meta.dirname;
/**
 * A guard against a hang: generation, a first Go build (about 20 s of CPU) and the flows took up
 * to 110 s each on our shared cores while a benchmark ran.
 */
const SLOW = { timeout: 300_000 };

let app: Awaited<ReturnType<typeof serveApp>>;
let baseUrl: string;
let workDir: string;
let documentPath: string;

beforeAll(async () => {
  app = await serveApp();
  baseUrl = `${app.origin}/public/v1`;
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ticketing-clients-'));
  const served = await fetch(`${baseUrl}/openapi.json`);
  expect(served.status).toBe(200);
  documentPath = path.join(workDir, 'openapi.json');
  fs.writeFileSync(documentPath, await served.text());
});
afterAll(async () => {
  await app?.close();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

/** Runs a program (without blocking: the service answers from this process); a failure shows its output. */
async function output(file: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(file, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
    throw new Error(`${path.basename(file)} ${args.join(' ')} failed: ${(err as Error).message}\n${stdout}${stderr}`, { cause: err });
  }
}

/**
 * A generated client, kept between runs in node_modules/.cache under the hash of everything it is
 * made of (the served document, the generator's pinned versions, the flow's own files): the same
 * inputs give the same client, so a run whose document did not change reuses the one generated
 * (and the generator's output, which the tests check) instead of generating and compiling again.
 * `generate` writes into the folder it is given; a failure caches nothing.
 */
async function generatedOnce(kind: string, inputs: (string | Buffer)[], generate: (dir: string) => Promise<{ stdout: string; stderr: string }>) {
  const hash = crypto.createHash('sha256');
  for (const input of inputs) hash.update(crypto.createHash('sha256').update(input).digest());
  const cache = fromRoot('node_modules', '.cache', 'ticketing-tests', 'clients');
  const dir = path.join(cache, `${kind}-${hash.digest('hex').slice(0, 16)}`);
  const outputFile = path.join(dir, 'generator-output.json');
  if (!fs.existsSync(outputFile)) {
    fs.mkdirSync(cache, { recursive: true });
    // Made beside its final name and renamed: an interrupted run leaves no half client.
    const building = fs.mkdtempSync(`${dir}.building-`);
    try {
      fs.writeFileSync(path.join(building, 'generator-output.json'), JSON.stringify(await generate(building)));
      for (const entry of fs.readdirSync(cache)) {
        if (entry.startsWith(`${kind}-`) && !entry.startsWith(path.basename(dir))) fs.rmSync(path.join(cache, entry), { recursive: true, force: true });
      }
      fs.renameSync(building, dir);
    } catch (err) {
      fs.rmSync(building, { recursive: true, force: true });
      if (!fs.existsSync(outputFile)) throw err;
    }
  }
  return { dir, generated: JSON.parse(fs.readFileSync(outputFile, 'utf8')) as { stdout: string; stderr: string } };
}

const versionOf = async (file: string, args: string[]) => (await output(file, args)).stdout;

interface FlowRunner {
  /** `main`, or `deliveries <subscription id>`: the flow's JSON. */
  (...args: string[]): Promise<any>;
}

async function workspaceWithKey() {
  const ws = await createTestWorkspace('Generated client');
  const key = await ws.key({ name: `client-${ws.workspace.id}` });
  return { ws, key };
}

/**
 * The flow's main part, checked against the service: `client` names the ticket and the
 * subscription (`From Python`, https://93.184.216.34/python).
 */
async function checkMainFlow(flow: FlowRunner, client: 'Python' | 'Go') {
  const { ws, key } = await workspaceWithKey();
  const support = supportBoard(ws);
  const started = Date.now();
  const out = await flow('main', key.value);

  expect(out.me).toEqual({ workspace: ws.workspace.name, key: key.record.name, scopes: [...API_SCOPES] });
  expect(out.boards.map((b: { name: string }) => b.name).sort()).toEqual(['Billing', 'Support']);
  expect(out.boards.find((b: { name: string }) => b.name === 'Support')).toEqual({
    id: support.board.id,
    name: 'Support',
    fields: ['Product', 'Order number', 'Affected users'],
  });

  const stored = await prisma.ticket.findUniqueOrThrow({ where: { id: out.ticket.id } });
  expect(stored.subject).toBe(`From ${client}`);
  expect(out.ticket).toMatchObject({ subject: `From ${client}`, boardId: support.board.id, channel: 'api', version: 1, fields: [{ fieldId: support.product, value: 'Web' }] });
  expect(Math.abs(Date.parse(out.ticket.createdAt) - stored.createdAt.getTime())).toBeLessThan(1000);
  expect(Date.parse(out.ticket.createdAt)).toBeGreaterThanOrEqual(started - 1000);
  // The repeat with the same Idempotency-Key is the first answer again, marked as replayed.
  expect(out.ticket.replayed).not.toBe('true');
  expect(out.repeat).toEqual({ id: out.ticket.id, replayed: 'true' });
  expect(out.refused).toEqual({ status: 422, code: 'validation_failed', paths: ['/boardId'] });

  // Three tickets, newest first, two to a page.
  expect(new Set(out.created).size).toBe(3);
  expect(await prisma.ticket.count({ where: { workspaceId: ws.workspace.id } })).toBe(3);
  expect(out.pages).toEqual([[out.created[2], out.created[1]], [out.created[0]]]);

  const subscription = await prisma.webhookSubscription.findUniqueOrThrow({ where: { id: out.subscription.id } });
  expect(subscription.workspaceId).toBe(ws.workspace.id);
  // Thin payloads through the generated clients: the value is sent, saved and answered.
  expect(subscription.payload).toBe('thin');
  expect(out.subscription).toMatchObject({ url: `https://93.184.216.34/${client.toLowerCase()}`, events: ['ticket.created'], condition: 'receiving', payload: 'thin' });
  expect(out.subscription.secret).toMatch(/^whsec_/);
  // A shortened retry schedule, sent through the generated request model and read from the answer's.
  expect(out.subscription.retrySchedule).toEqual({ delaysSeconds: [60, 300], maxAttempts: 3, custom: true });
  expect(subscription.retrySchedule).toEqual({ delaysSeconds: [60, 300] });
  expect(Date.parse(out.subscription.createdAt)).toBe(subscription.createdAt.getTime());
  return { ws, key: key.value, subscriptionId: out.subscription.id as string };
}

/** Two deliveries written as the relay and the worker write them: one waiting, one with a failed attempt that waited. */
async function checkDeliveries(flow: FlowRunner, setup: Awaited<ReturnType<typeof checkMainFlow>>) {
  const { ws, key, subscriptionId } = setup;
  const attempted = await createDelivery(ws, subscriptionId);
  await prisma.deliveryAttempt.create({
    data: {
      id: `att_${attempted.deliveryId.slice(4)}`,
      deliveryId: attempted.deliveryId,
      subscriptionId,
      eventId: attempted.eventId,
      eventType: attempted.eventType,
      attempt: 1,
      trigger: 'scheduled',
      status: 'failed',
      httpStatus: 503,
      payload: '{}',
      workflowId: `event:${attempted.eventId}`,
      attemptedAt: new Date(Date.now() - 60_000),
      waitedReason: 'retry_after',
      waitedMs: 30_000,
    },
  });
  await prisma.delivery.update({ where: { id: attempted.deliveryId }, data: { attemptCount: 1, nextAttemptAt: new Date(Date.now() + 60_000) } });
  const waiting = await createDelivery(ws, subscriptionId);

  const out = await flow('deliveries', key, subscriptionId);
  // One entry a page, as the service lists them (newest first).
  const listed = await api('GET', `/webhooks/${subscriptionId}/deliveries`, { key });
  expect(listed.status).toBe(200);
  expect(listed.body.data).toHaveLength(2);
  // Times as instants: each client prints them in its own ISO 8601 form.
  const instant = (t: string | null) => (t === null ? null : Date.parse(t));
  expect(out.pages.flat().map((e: any) => ({ ...e, attemptedAt: instant(e.attemptedAt) }))).toEqual(
    listed.body.data.map((e: any) => ({
      id: e.id,
      deliveryId: e.deliveryId,
      eventType: e.eventType,
      attempt: e.attempt,
      status: e.status,
      httpStatus: e.httpStatus,
      attemptedAt: instant(e.attemptedAt),
      waited: e.waited,
      maxAttempts: e.maxAttempts,
    })),
  );
  expect(out.pages.every((page: unknown[]) => page.length <= 1)).toBe(true);
  // Each entry against the subscription's schedule in force: attempt n of 3.
  expect(out.pages.flat().map((e: any) => e.maxAttempts)).toEqual([3, 3]);
  expect(out.pages.flat().map((e: any) => [e.deliveryId, e.status, e.httpStatus, e.waited])).toEqual([
    [waiting.deliveryId, 'pending', null, null],
    [attempted.deliveryId, 'failed', 503, { reason: 'retry_after', ms: 30_000 }],
  ]);
}

/** The audit log's entry of the main flow's subscription, one a page, as the service lists it. */
async function checkAudit(flow: FlowRunner, setup: Awaited<ReturnType<typeof checkMainFlow>>) {
  const { key, subscriptionId } = setup;
  const out = await flow('audit', key);
  const listed = await api('GET', '/audit-log?action=webhook_subscription.created', { key });
  expect(listed.status).toBe(200);
  expect(out.pages.flat()).toEqual(
    listed.body.data.map((e: any) => ({ id: e.id, action: e.action, actor: e.actor.label, target: e.target.id, fields: e.changes.map((c: any) => c.field) })),
  );
  expect(out.pages.flat()).toHaveLength(1);
  expect(out.pages.flat()[0]).toMatchObject({ action: 'webhook_subscription.created', target: subscriptionId, fields: expect.arrayContaining(['url', 'events', 'description']) });
}

/**
 * A broker destination through the generated request and answer types (the document's oneOf with
 * its discriminator): an SQS queue saved (a public address written as an IP literal: saving never
 * connects, and needs no DNS), read back, changed to a Kafka topic, deleted. Each answer parses
 * into the member its `type` names; no answer carries a credential, which the row holds sealed.
 */
async function checkDestination(flow: FlowRunner, client: 'Python' | 'Go') {
  const { ws, key } = await workspaceWithKey();
  const queueUrl = `https://93.184.216.34/123456789012/${client.toLowerCase()}-events.fifo`;
  const secrets = { accessKeyId: `AKIA${client.toUpperCase()}FLOWEXAMPLE`, secretAccessKey: `sqs-secret-${crypto.randomUUID()}`, kafkaPassword: `kafka-password-${crypto.randomUUID()}` };
  const out = await flow('destination', key.value, queueUrl, secrets.accessKeyId, secrets.secretAccessKey, secrets.kafkaPassword);
  const model = (d: { model: string }) => ({ ...d, model: d.model.replace(/^ticketing\./, '') });
  const sqs = { model: 'SqsDestination', type: 'sqs', queueUrl, region: 'eu-west-1', fifo: true };
  expect(model(out.created.destination)).toEqual(sqs);
  expect(out.created.url).toBe(queueUrl);
  expect(model(out.read.destination)).toEqual(sqs);
  expect(model(out.changed.destination)).toEqual({ model: 'KafkaDestination', type: 'kafka', brokers: ['93.184.216.34:9093'], topic: 'tickets', tls: true, sasl: 'scram-sha-512' });
  expect(out.changed.url).toBe('kafka+ssl://93.184.216.34:9093/tickets');
  expect(out.answers).toHaveLength(3);
  for (const answer of out.answers as string[]) for (const secret of Object.values(secrets)) expect(answer).not.toContain(secret);
  expect([out.deleted, out.gone]).toEqual([204, 404]);
  const row = await prisma.webhookSubscription.findUniqueOrThrow({ where: { id: out.created.id } });
  expect(row).toMatchObject({ workspaceId: ws.workspace.id, destinationType: 'kafka' });
  expect(row.deletedAt).not.toBeNull();
  expect(JSON.parse(openSecret(row.destinationCredentials!, { subscriptionId: row.id, column: 'destinationCredentials' }))).toEqual({ username: client.toLowerCase(), password: secrets.kafkaPassword });
}

/**
 * A bulk job through the flow: accepted (202, queued) and replayed under its Idempotency-Key,
 * read back queued; run here (this file has no Temporal worker: the job's activity code, as the
 * worker would run it), then read again through the client with each item's result.
 */
async function checkBulk(flow: FlowRunner, client: 'Python' | 'Go') {
  const { ws, key } = await workspaceWithKey();
  const support = supportBoard(ws);
  const out = await flow('bulk', key.value, support.board.id, support.product, 'Web');
  expect(out.accepted).toEqual({ id: expect.stringMatching(/^job_/), status: 'queued', total: 2, replayed: null });
  expect(out.repeat).toEqual({ id: out.accepted.id, replayed: 'true' });
  expect(out.job).toMatchObject({ id: out.accepted.id, status: 'queued', total: 2, processed: 0 });
  expect(await prisma.ticketBulkJob.count({ where: { workspaceId: ws.workspace.id } })).toBe(1);

  expect(await jobRunner.takeNext(ws.workspace.id)).toBe(out.accepted.id);
  expect(await jobRunner.runChunk(out.accepted.id)).toMatchObject({ remaining: 0 });
  const done = (await flow('job', key.value, out.accepted.id)).job;
  const ticket = await prisma.ticket.findFirst({ where: { workspaceId: ws.workspace.id, subject: `Bulk from ${client}` } });
  expect(done).toEqual({
    id: out.accepted.id,
    status: 'completed',
    total: 2,
    processed: 2,
    succeeded: 1,
    failed: 1,
    items: [
      { index: 0, operation: 'create', status: 'succeeded', ticketId: ticket?.id, error: null },
      { index: 1, operation: 'create', status: 'failed', ticketId: null, error: 'validation_failed' },
    ],
  });
}

/**
 * The administration writes through the flow (board, invitation, a person's role and activation),
 * each checked against what the service stored and recorded in the audit log.
 */
async function checkAdmin(flow: FlowRunner, client: 'Python' | 'Go') {
  const { ws, key } = await workspaceWithKey();
  const person = await prisma.user.create({
    data: { workspaceId: ws.workspace.id, userName: 'person', fullName: 'A Person', email: `person-${ws.workspace.id}@example.test`, roleId: ws.roles.agent.id },
  });
  const email = `${client.toLowerCase()}-${ws.workspace.id}@example.test`;
  const out = await flow('admin', key.value, email, String(ws.roles.viewer.id), String(ws.roles.admin.id), String(person.id));
  const board = await prisma.board.findUniqueOrThrow({ where: { id: out.board.id }, include: { fields: true, states: { orderBy: { position: 'asc' } } } });
  expect([board.workspaceId, board.name, board.archivedAt]).toEqual([ws.workspace.id, `${client} board, renamed`, null]);
  expect(out.board).toEqual({
    id: board.id,
    fields: [['Severity', 'select', true, ['minor', 'major']]],
    states: board.states.map((s) => s.name),
    renamed: `${client} board, renamed`,
    archived: true,
    opened: true,
  });
  expect(out.invitation).toEqual({ id: expect.stringMatching(/^inv_/), email, emailed: false, revoked: out.invitation.id });
  expect(await prisma.invitation.count({ where: { workspaceId: ws.workspace.id } })).toBe(0);
  expect(out.refused).toEqual({ status: 403, code: 'forbidden' });
  expect(out.person).toEqual({ roleId: ws.roles.viewer.id, deactivated: true, reactivated: true });
  const stored = await prisma.user.findUniqueOrThrow({ where: { id: person.id } });
  expect([stored.roleId, stored.deactivatedAt]).toEqual([ws.roles.viewer.id, null]);
  const audit = await prisma.auditEntry.findMany({ where: { workspaceId: ws.workspace.id, actorType: 'api_key' }, orderBy: { occurredAt: 'asc' } });
  expect(audit.map((a) => a.action)).toEqual([
    'board.created', 'board.updated', 'board.archived', 'board.unarchived',
    'user.invited', 'user.invitation_revoked', 'user.role_changed', 'user.deactivated', 'user.reactivated',
  ]);
}

describe('openapi-python-client', () => {
  let flow: FlowRunner;
  let generated: { stdout: string; stderr: string };

  beforeAll(async () => {
    const tools = provisioned('OPENAPI_PYTHON_CLIENT_DIR');
    // The generator runs ruff (from the same folder) on what it wrote.
    const env = { PYTHONPATH: tools, PATH: `${path.join(tools, 'bin')}${path.delimiter}${process.env.PATH}` };
    const client = await generatedOnce(
      'python',
      [fs.readFileSync(documentPath), fs.readFileSync(path.join(tools, '.requirements')), await versionOf('python3', ['--version'])],
      (dir) => output('python3', [path.join(tools, 'bin', 'openapi-python-client'), 'generate', '--path', documentPath, '--output-path', path.join(dir, 'ticketing_client'), '--meta', 'none'], { env }),
    );
    generated = client.generated;
    const target = path.join(client.dir, 'ticketing_client');
    flow = async (...args) => {
      const [command, key, ...rest] = args;
      const env = { PYTHONPATH: [path.dirname(target), tools].join(path.delimiter), TICKETING_API_URL: baseUrl, TICKETING_API_KEY: key };
      return JSON.parse((await output('python3', [path.join(here, 'python', 'flow.py'), command, ...rest], { env })).stdout);
    };
  }, SLOW.timeout);

  it('generates from the served document with no warning', () => {
    expect(generated.stderr).toBe('');
    expect(generated.stdout.trim()).toMatch(/^Generating \S+ticketing_client$/);
  });

  it('drives the flow; every answer parses into the generated models', SLOW, async () => {
    const setup = await checkMainFlow(flow, 'Python');
    await checkDeliveries(flow, setup);
    await checkAudit(flow, setup);
  });

  it('saves, reads, changes and deletes a broker destination through the oneOf models; no credential answered', SLOW, async () => {
    await checkDestination(flow, 'Python');
  });

  it('sends a bulk job and follows it; every answer parses into the generated models', SLOW, async () => {
    await checkBulk(flow, 'Python');
  });

  it('administers boards and people; every answer parses into the generated models', SLOW, async () => {
    await checkAdmin(flow, 'Python');
  });
});

describe('oapi-codegen', () => {
  let flow: FlowRunner;
  let generated: { stdout: string; stderr: string };

  beforeAll(async () => {
    const tools = provisioned('GO_TOOLS_DIR');
    const go = provisioned('GO_PATH');
    // The module cache and build cache that provisioning filled: no network (GOPROXY=off), and
    // only the generated package compiles afresh.
    const env = {
      GOMODCACHE: path.join(tools, 'mod'),
      GOCACHE: path.join(tools, 'cache'),
      GOFLAGS: '-modcacherw -buildvcs=false',
      GOTOOLCHAIN: 'local',
      GOPROXY: 'off',
    };
    const sources = ['go.mod', 'go.sum', 'main.go'];
    const client = await generatedOnce(
      'go',
      [fs.readFileSync(documentPath), fs.readFileSync(path.join(tools, '.versions')), await versionOf(go, ['version']), ...sources.map((file) => fs.readFileSync(path.join(here, 'go', file)))],
      async (module) => {
        fs.mkdirSync(path.join(module, 'ticketing'), { recursive: true });
        for (const file of sources) fs.copyFileSync(path.join(here, 'go', file), path.join(module, file));
        const codegen = await output(path.join(tools, 'bin', 'oapi-codegen'), ['-generate', 'types,client', '-package', 'ticketing', '-o', path.join(module, 'ticketing', 'client.gen.go'), documentPath]);
        await output(go, ['build', '-o', 'flow', '.'], { cwd: module, env });
        return codegen;
      },
    );
    generated = client.generated;
    const module = client.dir;
    flow = async (...args) => {
      const [command, key, ...rest] = args;
      return JSON.parse((await output(path.join(module, 'flow'), [command, ...rest], { env: { TICKETING_API_URL: baseUrl, TICKETING_API_KEY: key } })).stdout);
    };
  }, SLOW.timeout);

  it('generates from the served document with no warning', () => {
    expect(generated).toEqual({ stdout: '', stderr: '' });
  });

  it('drives the flow; every answer parses into the generated types', SLOW, async () => {
    const setup = await checkMainFlow(flow, 'Go');
    await checkDeliveries(flow, setup);
    await checkAudit(flow, setup);
  });

  it('saves, reads, changes and deletes a broker destination through the oneOf types; no credential answered', SLOW, async () => {
    await checkDestination(flow, 'Go');
  });

  it('sends a bulk job and follows it; every answer parses into the generated types', SLOW, async () => {
    await checkBulk(flow, 'Go');
  });

  it('administers boards and people; every answer parses into the generated types', SLOW, async () => {
    await checkAdmin(flow, 'Go');
  });
});
