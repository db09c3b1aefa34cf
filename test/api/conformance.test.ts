// Every route of the table, called for real against a fresh workspace, answers only what the
// OpenAPI document says: a documented status, the documented media type, a body that validates
// against the documented schema, and the documented headers. Each operation must exercise every
// status it documents (5XX aside: nothing here may break the server on purpose).
//
// Data-driven: CASES holds each operation's own cases (successes, absent records, domain
// validation); the generic cases below (401, 403 for a missing scope, 404 for an impossible id,
// 400/413/415/422 for bad bodies and queries, 409, 429) are derived from the document. A route
// without an entry in CASES fails, naming its operationId.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from '@temporalio/worker';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { dereference } from '@readme/openapi-parser';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { routes } from '../../src/api/routes.ts';
import type { RouteDef } from '../../src/rest/route.ts';
import { buildOpenApiDocument } from '../../src/api/openapi.ts';
import { API_SCOPES } from '../../src/access/principal.ts';
import { MAX_BODY_BYTES } from '../../src/validation/request-body.ts';
import { requestHash } from '../../src/idempotency/idempotency.service.ts';
import { idempotencyRepository } from '../../src/idempotency/idempotency.repository.ts';
import { prisma } from '../../src/db/db.ts';
import { closeTemporal, useTemporal } from '../../src/temporal/client.ts';
import { createWorker } from '../../src/temporal/worker.ts';
import { createDeliveryActivities } from '../../src/webhooks/delivery/activities.ts';
import { createRecoverActivities } from '../../src/webhooks/log/recover.activities.ts';
import { createTicketBulkActivities } from '../../src/jobs/ticket-bulk.activities.ts';
import { startTestDevServer, uniqueId, type TestDevServer } from '../support/temporal.ts';
import { workflowBundleOf } from '../support/workflow-bundles.ts';
import { createDelivery, createSubscription } from '../webhooks/fixtures.ts';

type Ws = Awaited<ReturnType<typeof createTestWorkspace>>;
type Key = Awaited<ReturnType<Ws['key']>>;
type Res = Awaited<ReturnType<typeof api>>;

interface Call {
  params?: Record<string, string | number>;
  query?: Record<string, string>;
  body?: unknown;
  rawBody?: BodyInit;
  headers?: Record<string, string>;
  /** The key to send; the fixtures' all-scopes administrator key unless given; null sends none. */
  key?: string | null;
}

interface Case {
  name: string;
  status: number;
  /** The problem `code` expected, for error cases. */
  code?: string;
  call: (f: Fixtures) => Call | Promise<Call>;
  /** Further checks of this case's answer. */
  then?: (res: Res, f: Fixtures) => void;
}

interface Fixtures {
  ws: Ws;
  key: Key;
  /** A key of the Viewer role (sees every board, may change nothing) with every scope. */
  viewer: Key;
  board: { id: string; product: string; orderNumber: string };
  tickets: number[];
  articles: number[];
  /** A well-formed POST /tickets body. */
  ticketBody: (extra?: Record<string, unknown>) => Record<string, unknown>;
  /** Two webhook subscriptions, and a delivery of an event to the first. */
  webhooks: string[];
  deliveryId: string;
}

const ABSENT_ID = 2147483647;
const ABSENT_WEBHOOK = 'wh_01ARZ3NDEKTSV4RRFFQ69G5FAV';
/** A name that never resolves (RFC 2606): saving accepts it, a delivery fails fast. */
const HOOK_URL = 'https://93.184.216.34/ticketing'; // a host name would have to resolve
const QUEUE_URL = 'https://93.184.216.34/123456789012/ticket-events.fifo';

const NEW_BOARD = { name: 'Conformance', priorities: ['normal'], fields: [{ name: 'Kind', type: 'select', options: ['a', 'b'] }], states: [{ name: 'Open', category: 'open' }, { name: 'Done', category: 'solved' }] };
/** A new board of the fixtures' workspace (its id). */
const newBoard = async (f: Fixtures) => (await api('POST', '/boards', { key: f.key.value, body: NEW_BOARD })).body.id as string;
/** A new person of the Agent role (their id). */
const newPerson = async (f: Fixtures) =>
  (await prisma.user.create({ data: { workspaceId: f.ws.workspace.id, userName: `p-${uniqueKey()}`, fullName: 'Person', email: `p-${uniqueKey()}@example.test`, roleId: f.ws.roles.agent.id } })).id;

// Re-sending and recovering run workflows: a real Temporal dev server and worker, started on first use.
let temporalRig: Promise<{ dev: TestDevServer; worker: Worker; running: Promise<void> }> | undefined;
function ensureTemporal() {
  temporalRig ??= (async () => {
    const dev = await startTestDevServer();
    const taskQueue = uniqueId('conformance');
    const workflowsPath = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));
    const worker = await createWorker({
      connection: dev.nativeConnection,
      namespace: dev.namespace,
      taskQueue,
      workflowsPath,
      workflowBundle: await workflowBundleOf(workflowsPath),
      activities: { ...createDeliveryActivities({ timeoutMs: 2_000 }), ...createRecoverActivities(), ...createTicketBulkActivities() },
    });
    useTemporal(dev.address, taskQueue);
    return { dev, worker, running: worker.run() };
  })();
  return temporalRig;
}
afterAll(async () => {
  if (!temporalRig) return;
  const { dev, worker, running } = await temporalRig;
  worker.shutdown();
  await running.catch(() => undefined);
  await closeTemporal();
  await dev.server.stop();
}, 60_000);

const setCondition = (id: string, condition: 'paused' | 'disabled') => prisma.webhookSubscription.update({ where: { id }, data: { condition } });
const uniqueKey = () => `conformance-${crypto.randomUUID()}`;
const hasLink = (res: Res) => expect(res.headers.get('link')).toMatch(/^<\/public\/v1\/[^>]*[?&]cursor=[^>]+>; rel="next"$/);
const lastPage = (res: Res) => {
  expect(res.body.nextCursor).toBeNull();
  expect(res.headers.get('link')).toBeNull();
};

/** Each operation's own cases. Adding a route to the table means adding its entry here. */
/**
 * Documented statuses that need a state these fixtures cannot reach quickly, with the test that
 * produces each: a resend answers 202 only when its attempt has no result after 15 s
 * (test/webhooks/log/resend-wait.test.ts, against a Temporal server with no worker).
 */
const PRODUCED_ELSEWHERE: Record<string, string[]> = { resendWebhookDelivery: ['202'] };

const CASES: Record<string, Case[]> = {
  getMe: [
    { name: 'the calling key', status: 200, call: () => ({}), then: (res, f) => expect(res.body.apiKey.id).toBe(f.key.record.id) },
    { name: 'a key with a single unrelated scope still reads itself', status: 200, call: async (f) => ({ key: (await f.ws.key({ scopes: ['kb:read'] })).value }) },
  ],
  listBoards: [
    { name: 'every board', status: 200, call: () => ({}), then: (res) => expect(res.body.data).toHaveLength(2) },
    { name: 'a page of one, with Link', status: 200, call: () => ({ query: { limit: '1' } }), then: hasLink },
    {
      name: 'the next page, the last',
      status: 200,
      call: async (f) => ({ query: { limit: '1', cursor: (await api('GET', '/boards?limit=1', { key: f.key.value })).body.nextCursor } }),
      then: lastPage,
    },
    { name: 'a cursor this list never issued', status: 422, code: 'validation_failed', call: () => ({ query: { cursor: 'not-a-cursor' } }) },
    { name: 'with tickets:read only', status: 200, call: async (f) => ({ key: (await f.ws.key({ scopes: ['tickets:read'] })).value }) },
  ],
  getBoard: [
    { name: 'a board', status: 200, call: (f) => ({ params: { id: f.board.id } }), then: (res, f) => expect(res.body.id).toBe(f.board.id) },
    { name: 'an absent board', status: 404, code: 'not_found', call: () => ({ params: { id: 'brd_absent' } }) },
  ],
  listUsers: [
    { name: 'people and service accounts', status: 200, call: () => ({}), then: (res) => expect(res.body.data.map((u: { kind: string }) => u.kind)).toContain('service') },
    { name: 'a page of one, with Link', status: 200, call: () => ({ query: { limit: '1' } }), then: hasLink },
    { name: 'a page size over the maximum', status: 422, code: 'validation_failed', call: () => ({ query: { limit: '101' } }) },
  ],
  getUser: [
    { name: 'the administrator', status: 200, call: (f) => ({ params: { id: f.ws.admin.id } }) },
    { name: 'a key’s service account (no e-mail)', status: 200, call: (f) => ({ params: { id: f.key.record.serviceUserId } }), then: (res) => expect(res.body.email).toBeNull() },
    { name: 'an absent user', status: 404, code: 'not_found', call: () => ({ params: { id: ABSENT_ID } }) },
  ],
  createBoard: [
    { name: 'a board', status: 201, call: () => ({ body: NEW_BOARD }), then: (res) => expect(res.body.states.map((s: { name: string }) => s.name)).toEqual(['Open', 'Done']) },
    { name: 'two states of one name', status: 422, code: 'validation_failed', call: () => ({ body: { ...NEW_BOARD, states: [{ name: 'A', category: 'open' }, { name: 'a', category: 'closed' }] } }) },
    { name: 'a role that is not admin', status: 403, code: 'forbidden', call: (f) => ({ key: f.viewer.value, body: NEW_BOARD }) },
  ],
  updateBoard: [
    { name: 'a new name', status: 200, call: async (f) => ({ params: { id: await newBoard(f) }, body: { name: 'Renamed' } }), then: (res) => expect(res.body.name).toBe('Renamed') },
    { name: 'an absent board', status: 404, code: 'not_found', call: () => ({ params: { id: 'brd_absent' }, body: { name: 'X' } }) },
    { name: 'nothing to change', status: 422, code: 'validation_failed', call: (f) => ({ params: { id: f.board.id }, body: {} }) },
    { name: 'a role that is not admin', status: 403, code: 'forbidden', call: (f) => ({ key: f.viewer.value, params: { id: f.board.id }, body: { name: 'No' } }) },
  ],
  archiveBoard: [
    { name: 'a board archived', status: 200, call: async (f) => ({ params: { id: await newBoard(f) } }), then: (res) => expect(res.body.archivedAt).toEqual(expect.any(String)) },
    { name: 'a role that is not admin', status: 403, code: 'forbidden', call: (f) => ({ key: f.viewer.value, params: { id: f.board.id } }) },
  ],
  unarchiveBoard: [
    { name: 'an open board stays open', status: 200, call: async (f) => ({ params: { id: await newBoard(f) } }), then: (res) => expect(res.body.archivedAt).toBeNull() },
    { name: 'a role that is not admin', status: 403, code: 'forbidden', call: (f) => ({ key: f.viewer.value, params: { id: f.board.id } }) },
  ],
  changeUserRole: [
    { name: 'a person given the Viewer role', status: 200, call: async (f) => ({ params: { id: await newPerson(f) }, body: { roleId: f.ws.roles.viewer.id } }), then: (res, f) => expect(res.body.roleId).toBe(f.ws.roles.viewer.id) },
    { name: 'a role of no one', status: 422, code: 'validation_failed', call: async (f) => ({ params: { id: await newPerson(f) }, body: { roleId: ABSENT_ID } }) },
    { name: 'an administrator (keys never change them)', status: 403, code: 'forbidden', call: (f) => ({ params: { id: f.ws.admin.id }, body: { roleId: f.ws.roles.viewer.id } }) },
  ],
  deactivateUser: [
    { name: 'a person deactivated', status: 200, call: async (f) => ({ params: { id: await newPerson(f) } }), then: (res) => expect(res.body.deactivatedAt).toEqual(expect.any(String)) },
    { name: 'an administrator (keys never deactivate them)', status: 403, code: 'forbidden', call: (f) => ({ params: { id: f.ws.admin.id } }) },
  ],
  reactivateUser: [
    { name: 'an active person stays active', status: 200, call: async (f) => ({ params: { id: await newPerson(f) } }), then: (res) => expect(res.body.deactivatedAt).toBeNull() },
    { name: 'a role that is not admin', status: 403, code: 'forbidden', call: async (f) => ({ key: f.viewer.value, params: { id: await newPerson(f) } }) },
  ],
  inviteUser: [
    { name: 'an invitation e-mailed', status: 201, call: (f) => ({ body: { email: `invited-${uniqueKey()}@example.test`, roleId: f.ws.roles.agent.id } }), then: (res) => expect(res.body.invitation.id).toMatch(/^inv_/) },
    { name: 'an address with an account', status: 422, code: 'validation_failed', call: (f) => ({ body: { email: f.ws.admin.email, roleId: f.ws.roles.agent.id } }) },
    { name: 'an admin role (keys never invite one)', status: 403, code: 'forbidden', call: (f) => ({ body: { email: `boss-${uniqueKey()}@example.test`, roleId: f.ws.roles.admin.id } }) },
  ],
  revokeInvitation: [
    {
      name: 'a pending invitation',
      status: 200,
      call: async (f) => ({ params: { id: (await api('POST', '/invitations', { key: f.key.value, body: { email: `revoked-${uniqueKey()}@example.test`, roleId: f.ws.roles.agent.id } })).body.invitation.id } }),
    },
    { name: 'an absent invitation', status: 404, code: 'not_found', call: () => ({ params: { id: 'inv_01ARZ3NDEKTSV4RRFFQ69G5FAV' } }) },
  ],
  createTicket: [
    { name: 'a ticket', status: 201, call: (f) => ({ body: f.ticketBody() }), then: (res) => expect(res.body.channel).toBe('api') },
    {
      name: 'a repeat with the same Idempotency-Key: the first answer, replayed',
      status: 201,
      call: async (f) => {
        const call = { body: f.ticketBody({ subject: 'Replayed' }), headers: { 'Idempotency-Key': uniqueKey() } };
        expect((await api('POST', '/tickets', { key: f.key.value, ...call })).status).toBe(201);
        return call;
      },
      then: (res) => expect(res.headers.get('idempotent-replayed')).toBe('true'),
    },
    { name: 'an unknown board', status: 422, code: 'validation_failed', call: (f) => ({ body: f.ticketBody({ boardId: 'brd_absent' }) }) },
    {
      name: 'a repeat of a refused request: the refusal, replayed',
      status: 422,
      code: 'validation_failed',
      call: async (f) => {
        const call = { body: f.ticketBody({ priority: 'not a priority' }), headers: { 'Idempotency-Key': uniqueKey() } };
        expect((await api('POST', '/tickets', { key: f.key.value, ...call })).status).toBe(422);
        return call;
      },
      then: (res) => expect(res.headers.get('idempotent-replayed')).toBe('true'),
    },
    {
      name: 'an Idempotency-Key reused with another body',
      status: 422,
      code: 'idempotency_key_reused',
      call: async (f) => {
        const key = uniqueKey();
        expect((await api('POST', '/tickets', { key: f.key.value, body: f.ticketBody(), headers: { 'Idempotency-Key': key } })).status).toBe(201);
        return { body: f.ticketBody({ subject: 'Another' }), headers: { 'Idempotency-Key': key } };
      },
    },
    { name: 'a role that may not change tickets', status: 403, code: 'forbidden', call: (f) => ({ key: f.viewer.value, body: f.ticketBody() }) },
  ],
  listTickets: [
    { name: 'every ticket', status: 200, call: () => ({}), then: (res, f) => expect(res.body.data.map((t: { id: number }) => t.id)).toEqual([...f.tickets].reverse()) },
    { name: 'a page of one, with Link', status: 200, call: () => ({ query: { limit: '1' } }), then: hasLink },
    {
      name: 'filtered by board, state and time',
      status: 200,
      call: (f) => ({ query: { boardId: f.board.id, state: 'New', updatedSince: '2000-01-01T00:00:00Z' } }),
      then: (res) => expect(res.body.data.length).toBeGreaterThan(0),
    },
    { name: 'a time that is not ISO 8601', status: 422, code: 'validation_failed', call: () => ({ query: { updatedSince: 'yesterday' } }) },
    { name: 'an unknown query parameter', status: 422, code: 'validation_failed', call: () => ({ query: { colour: 'red' } }) },
  ],
  getTicket: [
    { name: 'a ticket', status: 200, call: (f) => ({ params: { id: f.tickets[0] } }) },
    { name: 'an absent ticket', status: 404, code: 'not_found', call: () => ({ params: { id: ABSENT_ID } }) },
    {
      name: 'If-Match with the current version',
      status: 200,
      call: async (f) => {
        const etag = (await api('GET', `/tickets/${f.tickets[0]}`, { key: f.key.value })).headers.get('etag')!;
        return { params: { id: f.tickets[0] }, headers: { 'If-Match': etag } };
      },
    },
    { name: 'If-Match with a version the ticket is not at', status: 412, code: 'precondition_failed', call: (f) => ({ params: { id: f.tickets[0] }, headers: { 'If-Match': '"999999"' } }) },
    { name: 'a malformed If-Match', status: 400, code: 'invalid_header', call: (f) => ({ params: { id: f.tickets[0] }, headers: { 'If-Match': 'version 1' } }) },
  ],
  updateTicket: [
    { name: 'a new state and priority', status: 200, call: (f) => ({ params: { id: f.tickets[0] }, body: { state: 'In progress', priority: 'urgent' } }) },
    {
      name: 'a cleared field',
      status: 200,
      call: (f) => ({ params: { id: f.tickets[0] }, body: { fields: [{ fieldId: f.board.orderNumber, value: null }] } }),
      then: (res, f) => expect(res.body.fields.map((v: { fieldId: string }) => v.fieldId)).not.toContain(f.board.orderNumber),
    },
    { name: 'an absent ticket', status: 404, code: 'not_found', call: () => ({ params: { id: ABSENT_ID }, body: { subject: 'Nobody' } }) },
    { name: 'a priority the board does not have', status: 422, code: 'validation_failed', call: (f) => ({ params: { id: f.tickets[0] }, body: { priority: 'whenever' } }) },
    { name: 'nothing to change', status: 422, code: 'validation_failed', call: (f) => ({ params: { id: f.tickets[0] }, body: {} }) },
    { name: 'a role that may not change tickets', status: 403, code: 'forbidden', call: (f) => ({ key: f.viewer.value, params: { id: f.tickets[0] }, body: { subject: 'No' } }) },
    {
      name: 'If-Match with the current version',
      status: 200,
      call: async (f) => {
        const etag = (await api('GET', `/tickets/${f.tickets[1]}`, { key: f.key.value })).headers.get('etag')!;
        return { params: { id: f.tickets[1] }, body: { priority: 'low' }, headers: { 'If-Match': etag } };
      },
      then: (res) => expect(res.headers.get('etag')).toBe(`"${res.body.version}"`),
    },
    { name: 'If-Match with a stale version', status: 412, code: 'precondition_failed', call: (f) => ({ params: { id: f.tickets[1] }, body: { priority: 'urgent' }, headers: { 'If-Match': '"1"' } }) },
    { name: 'a malformed If-Match', status: 400, code: 'invalid_header', call: (f) => ({ params: { id: f.tickets[1] }, body: { priority: 'urgent' }, headers: { 'If-Match': 'version 1' } }) },
  ],
  listTicketHistory: [
    { name: 'the history', status: 200, call: (f) => ({ params: { id: f.tickets[0] } }), then: (res) => expect(res.body.data[0].action).toBe('created') },
    { name: 'a page of one, with Link', status: 200, call: (f) => ({ params: { id: f.tickets[0] }, query: { limit: '1' } }), then: hasLink },
    { name: 'an absent ticket', status: 404, code: 'not_found', call: () => ({ params: { id: ABSENT_ID } }) },
  ],
  listTicketComments: [
    { name: 'the comments', status: 200, call: (f) => ({ params: { id: f.tickets[0] } }), then: (res) => expect(res.body.data).toHaveLength(2) },
    { name: 'a page of one, with Link', status: 200, call: (f) => ({ params: { id: f.tickets[0] }, query: { limit: '1' } }), then: hasLink },
    { name: 'a ticket without comments', status: 200, call: (f) => ({ params: { id: f.tickets[1] } }), then: lastPage },
    { name: 'an absent ticket', status: 404, code: 'not_found', call: () => ({ params: { id: ABSENT_ID } }) },
  ],
  addTicketComment: [
    { name: 'a public comment', status: 201, call: (f) => ({ params: { id: f.tickets[1] }, body: { body: 'On it.' } }), then: (res) => expect(res.body.public).toBe(true) },
    { name: 'an internal note', status: 201, call: (f) => ({ params: { id: f.tickets[1] }, body: { body: 'Note', public: false } }) },
    { name: 'an absent ticket', status: 404, code: 'not_found', call: () => ({ params: { id: ABSENT_ID }, body: { body: 'Hello?' } }) },
    { name: 'a blank comment', status: 422, code: 'validation_failed', call: (f) => ({ params: { id: f.tickets[1] }, body: { body: '   ' } }) },
    { name: 'a role that may not change tickets', status: 403, code: 'forbidden', call: (f) => ({ key: f.viewer.value, params: { id: f.tickets[1] }, body: { body: 'No' } }) },
  ],
  listKnowledgeBaseArticles: [
    { name: 'every article', status: 200, call: () => ({}), then: (res) => expect(res.body.data).toHaveLength(2) },
    { name: 'published ones', status: 200, call: () => ({ query: { status: 'published' } }), then: (res) => expect(res.body.data).toHaveLength(1) },
    { name: 'a page of one, with Link', status: 200, call: () => ({ query: { limit: '1' } }), then: hasLink },
    { name: 'an unknown status', status: 422, code: 'validation_failed', call: () => ({ query: { status: 'lost' } }) },
  ],
  getKnowledgeBaseArticle: [
    { name: 'an article', status: 200, call: (f) => ({ params: { id: f.articles[0] } }) },
    { name: 'an absent article', status: 404, code: 'not_found', call: () => ({ params: { id: ABSENT_ID } }) },
  ],
  createKnowledgeBaseArticle: [
    { name: 'a draft', status: 201, call: () => ({ body: { title: 'Exporting data', body: 'Use the API.' } }), then: (res) => expect(res.body.status).toBe('draft') },
    { name: 'published, with tags', status: 201, call: () => ({ body: { title: 'Billing', body: 'Monthly.', status: 'published', tags: ['billing'] } }) },
    { name: 'a title too long', status: 422, code: 'validation_failed', call: () => ({ body: { title: 'x'.repeat(201), body: 'B' } }) },
  ],
  updateKnowledgeBaseArticle: [
    { name: 'archived', status: 200, call: (f) => ({ params: { id: f.articles[0] }, body: { status: 'archived' } }) },
    { name: 'an absent article', status: 404, code: 'not_found', call: () => ({ params: { id: ABSENT_ID }, body: { title: 'Gone' } }) },
    { name: 'nothing to change', status: 422, code: 'validation_failed', call: (f) => ({ params: { id: f.articles[0] }, body: {} }) },
  ],
  listWebhookSubscriptions: [
    { name: 'every subscription', status: 200, call: () => ({}), then: (res) => expect(res.body.data).toHaveLength(3) },
    { name: 'a page of one, with Link', status: 200, call: () => ({ query: { limit: '1' } }), then: hasLink },
    { name: 'a role that may not manage webhooks', status: 403, code: 'forbidden', call: (f) => ({ key: f.viewer.value }) },
  ],
  createWebhookSubscription: [
    {
      name: 'a subscription, with its secret',
      status: 201,
      call: () => ({ body: { url: HOOK_URL, events: ['ticket.created'], description: 'CRM' } }),
      then: (res) => expect(res.body.secret).toMatch(/^whsec_/),
    },
    { name: 'a URL outside the rule', status: 422, code: 'validation_failed', call: () => ({ body: { url: 'https://10.0.0.1/', events: ['ticket.created'] } }) },
    {
      name: 'an SQS destination: its settings answered, never its credentials',
      status: 201,
      call: () => ({ body: { destination: { type: 'sqs', queueUrl: QUEUE_URL, region: 'eu-west-1', credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'never-answered' } }, events: ['ticket.created'] } }),
      then: (res) => {
        expect(res.body.destination).toEqual({ type: 'sqs', queueUrl: QUEUE_URL, region: 'eu-west-1', fifo: true });
        expect(res.body.url).toBe(QUEUE_URL);
        expect(res.text).not.toContain('never-answered');
      },
    },
    {
      name: 'a broker address outside the rule',
      status: 422,
      code: 'validation_failed',
      call: () => ({ body: { destination: { type: 'nats', servers: ['10.0.0.1:4222'], subject: 'ticketing', tls: true }, events: ['ticket.created'] } }),
    },
    {
      name: 'over the key’s subscription limit',
      status: 422,
      code: 'subscription_limit_reached',
      call: async (f) => {
        const k = await f.ws.key({ name: 'No webhooks' });
        await prisma.apiKey.update({ where: { id: k.record.id }, data: { maxWebhookSubscriptions: 0 } });
        return { key: k.value, body: { url: HOOK_URL, events: ['ticket.created'] } };
      },
    },
    { name: 'a role that may not manage webhooks', status: 403, code: 'forbidden', call: (f) => ({ key: f.viewer.value, body: { url: HOOK_URL, events: ['ticket.created'] } }) },
  ],
  getWebhookSubscription: [
    { name: 'a subscription', status: 200, call: (f) => ({ params: { id: f.webhooks[0] } }), then: (res) => expect(res.body).not.toHaveProperty('secret') },
    { name: 'an absent subscription', status: 404, code: 'not_found', call: () => ({ params: { id: ABSENT_WEBHOOK } }) },
  ],
  updateWebhookSubscription: [
    { name: 'new events', status: 200, call: (f) => ({ params: { id: f.webhooks[0] }, body: { events: ['ticket.updated'] } }) },
    {
      name: 'a RabbitMQ destination instead of the URL',
      status: 200,
      call: (f) => ({ params: { id: f.webhooks[2] }, body: { destination: { type: 'rabbitmq', url: 'amqps://93.184.216.34/ticketing', exchange: 'tickets', credentials: { username: 'u', password: 'never-answered' } } } }),
      then: (res) => {
        expect(res.body.destination).toEqual({ type: 'rabbitmq', url: 'amqps://93.184.216.34/ticketing', exchange: 'tickets', routingKeyPrefix: '' });
        expect(res.text).not.toContain('never-answered');
      },
    },
    { name: 'an absent subscription', status: 404, code: 'not_found', call: () => ({ params: { id: ABSENT_WEBHOOK }, body: { description: 'x' } }) },
    { name: 'a URL outside the rule', status: 422, code: 'validation_failed', call: (f) => ({ params: { id: f.webhooks[0] }, body: { url: 'http://example.com/' } }) },
    { name: 'a role that may not manage webhooks', status: 403, code: 'forbidden', call: (f) => ({ key: f.viewer.value, params: { id: f.webhooks[0] }, body: { description: 'x' } }) },
  ],
  deleteWebhookSubscription: [
    { name: 'deleted', status: 204, call: (f) => ({ params: { id: f.webhooks[1] } }) },
    { name: 'an absent subscription', status: 404, code: 'not_found', call: () => ({ params: { id: ABSENT_WEBHOOK } }) },
  ],
  rotateWebhookSecret: [
    { name: 'a new secret', status: 200, call: (f) => ({ params: { id: f.webhooks[0] } }), then: (res) => expect(res.body.secret).toMatch(/^whsec_/) },
    { name: 'an absent subscription', status: 404, code: 'not_found', call: () => ({ params: { id: ABSENT_WEBHOOK } }) },
  ],
  sendWebhookTest: [
    { name: 'queued', status: 202, call: (f) => ({ params: { id: f.webhooks[0] } }), then: (res) => expect(res.body.type).toBe('webhook.test') },
    { name: 'an absent subscription', status: 404, code: 'not_found', call: () => ({ params: { id: ABSENT_WEBHOOK } }) },
    {
      name: 'a disabled subscription',
      status: 422,
      code: 'invalid_state_transition',
      call: async (f) => (await setCondition(f.webhooks[1], 'disabled'), { params: { id: f.webhooks[1] } }),
    },
  ],
  resumeWebhookSubscription: [
    {
      name: 'a paused subscription',
      status: 200,
      call: async (f) => (await setCondition(f.webhooks[1], 'paused'), { params: { id: f.webhooks[1] } }),
      then: (res) => expect(res.body.condition).toBe('receiving'),
    },
    { name: 'a receiving one', status: 422, code: 'invalid_state_transition', call: (f) => ({ params: { id: f.webhooks[0] } }) },
    { name: 'an absent subscription', status: 404, code: 'not_found', call: () => ({ params: { id: ABSENT_WEBHOOK } }) },
  ],
  enableWebhookSubscription: [
    {
      name: 'a disabled subscription',
      status: 200,
      call: async (f) => (await setCondition(f.webhooks[1], 'disabled'), { params: { id: f.webhooks[1] } }),
      then: (res) => expect(res.body.condition).toBe('receiving'),
    },
    { name: 'a receiving one', status: 422, code: 'invalid_state_transition', call: (f) => ({ params: { id: f.webhooks[0] } }) },
    { name: 'an absent subscription', status: 404, code: 'not_found', call: () => ({ params: { id: ABSENT_WEBHOOK } }) },
  ],
  listWebhookDeliveries: [
    { name: 'the log', status: 200, call: (f) => ({ params: { id: f.webhooks[0] } }), then: (res) => expect(res.body.data).toHaveLength(2) },
    { name: 'a page of one, with Link', status: 200, call: (f) => ({ params: { id: f.webhooks[0] }, query: { limit: '1' } }), then: hasLink },
    { name: 'filtered by status', status: 200, call: (f) => ({ params: { id: f.webhooks[0] }, query: { status: 'succeeded' } }), then: lastPage },
    { name: 'an unknown status', status: 422, code: 'validation_failed', call: (f) => ({ params: { id: f.webhooks[0] }, query: { status: 'lost' } }) },
    { name: 'an absent subscription', status: 404, code: 'not_found', call: () => ({ params: { id: ABSENT_WEBHOOK } }) },
    { name: 'a role that may not manage webhooks', status: 403, code: 'forbidden', call: (f) => ({ key: f.viewer.value, params: { id: f.webhooks[0] } }) },
  ],
  getWebhookDeliveryStats: [
    {
      name: 'the last 24 hours (the default): hourly buckets',
      status: 200,
      call: (f) => ({ params: { id: f.webhooks[0] } }),
      then: (res) => expect(res.body).toMatchObject({ period: '24h', bucket: 'hour', series: expect.arrayContaining([expect.objectContaining({ attempts: 0 })]) }),
    },
    { name: 'the last 30 days: daily buckets', status: 200, call: (f) => ({ params: { id: f.webhooks[0] }, query: { period: '30d' } }), then: (res) => expect(res.body.series).toHaveLength(30) },
    { name: 'an unknown period', status: 422, code: 'validation_failed', call: (f) => ({ params: { id: f.webhooks[0] }, query: { period: '1y' } }) },
    { name: 'an absent subscription', status: 404, code: 'not_found', call: () => ({ params: { id: ABSENT_WEBHOOK } }) },
    { name: 'a role that may not manage webhooks', status: 403, code: 'forbidden', call: (f) => ({ key: f.viewer.value, params: { id: f.webhooks[0] } }) },
  ],
  resendWebhookDelivery: [
    {
      name: 'sent again (the receiver does not resolve: a failed manual attempt)',
      status: 200,
      call: async (f) => (await ensureTemporal(), { params: { id: f.webhooks[0], deliveryId: f.deliveryId } }),
      then: (res, f) => expect(res.body).toMatchObject({ deliveryId: f.deliveryId, trigger: 'manual', status: 'failed', httpStatus: null }),
    },
    { name: 'an absent delivery', status: 404, code: 'not_found', call: (f) => ({ params: { id: f.webhooks[0], deliveryId: 'dlv_01ARZ3NDEKTSV4RRFFQ69G5FAV' } }) },
    {
      name: 'a paused subscription',
      status: 422,
      code: 'invalid_state_transition',
      call: async (f) => (await setCondition(f.webhooks[0], 'paused'), { params: { id: f.webhooks[0], deliveryId: f.deliveryId } }),
    },
  ],
  recoverWebhookDeliveries: [
    {
      name: 'started',
      status: 202,
      call: async (f) => (await ensureTemporal(), { params: { id: f.webhooks[0] }, body: { since: new Date(Date.now() - 3_600_000).toISOString() } }),
      then: (res, f) => expect(res.body).toMatchObject({ subscriptionId: f.webhooks[0], status: 'running' }),
    },
    {
      name: 'a repeat with the same Idempotency-Key: the first answer, replayed',
      status: 202,
      call: async (f) => {
        // A subscription of its own: the one above may still have its recovery running (one at a time).
        const { id } = await createSubscription(f.ws, { url: HOOK_URL });
        const call = { params: { id }, body: { since: new Date(Date.now() - 3_600_000).toISOString() }, headers: { 'Idempotency-Key': uniqueKey() } };
        expect((await api('POST', `/webhooks/${id}/recover`, { key: f.key.value, ...call })).status).toBe(202);
        return call;
      },
      then: (res) => expect(res.headers.get('idempotent-replayed')).toBe('true'),
    },
    { name: 'an absent subscription', status: 404, code: 'not_found', call: () => ({ params: { id: ABSENT_WEBHOOK }, body: { since: new Date(Date.now() - 3_600_000).toISOString() } }) },
    {
      name: 'a window ending in the future',
      status: 422,
      code: 'validation_failed',
      call: (f) => ({ params: { id: f.webhooks[0] }, body: { since: new Date().toISOString(), until: new Date(Date.now() + 3_600_000).toISOString() } }),
    },
    {
      name: 'a paused subscription',
      status: 422,
      code: 'invalid_state_transition',
      call: async (f) => (await setCondition(f.webhooks[1], 'paused'), { params: { id: f.webhooks[1] }, body: { since: new Date(Date.now() - 3_600_000).toISOString() } }),
    },
    {
      name: 'a role that may not manage webhooks',
      status: 403,
      code: 'forbidden',
      call: (f) => ({ key: f.viewer.value, params: { id: f.webhooks[0] }, body: { since: new Date(Date.now() - 3_600_000).toISOString() } }),
    },
  ],
  bulkTickets: [
    {
      name: 'a job of a creation and an update, queued',
      status: 202,
      call: (f) => ({ body: { items: [{ create: f.ticketBody() }, { update: { id: f.tickets[0], subject: 'Renamed in bulk' } }] } }),
      then: (res) => expect(res.body).toMatchObject({ status: 'queued', total: 2, processed: 0, items: [{ status: 'pending' }, { status: 'pending' }] }),
    },
    {
      name: 'a repeat with the same Idempotency-Key: the first answer, replayed',
      status: 202,
      call: async (f) => {
        const call = { body: { items: [{ create: f.ticketBody() }] }, headers: { 'Idempotency-Key': uniqueKey() } };
        expect((await api('POST', '/tickets/bulk', { key: f.key.value, ...call })).status).toBe(202);
        return call;
      },
      then: (res) => expect(res.headers.get('idempotent-replayed')).toBe('true'),
    },
    { name: '101 items', status: 422, code: 'validation_failed', call: (f) => ({ body: { items: Array.from({ length: 101 }, () => ({ create: f.ticketBody() })) } }) },
    { name: 'an item with neither create nor update', status: 422, code: 'validation_failed', call: () => ({ body: { items: [{}] } }) },
    { name: 'a role that may not change tickets', status: 403, code: 'forbidden', call: (f) => ({ key: f.viewer.value, body: { items: [{ create: f.ticketBody() }] } }) },
  ],
  getJob: [
    {
      name: 'a job of this workspace',
      status: 200,
      call: async (f) => {
        const accepted = await api('POST', '/tickets/bulk', { key: f.key.value, body: { items: [{ create: f.ticketBody() }] } });
        expect(accepted.status).toBe(202);
        return { params: { id: accepted.body.id } };
      },
      then: (res) => expect(res.body).toMatchObject({ id: expect.stringMatching(/^job_/), total: 1 }),
    },
    { name: 'an absent job', status: 404, code: 'not_found', call: () => ({ params: { id: 'job_01ARZ3NDEKTSV4RRFFQ69G5FAV' } }) },
  ],
  listEvents: [
    // The feed serves events below its horizon (src/events/event-feed.repository.ts): the oldest
    // transaction still running on the server, which on a PostgreSQL server shared with other test
    // files can be another database's. So the cases start once the fixture's events are served.
    { name: 'the newest events', status: 200, call: async (f) => (await feedServesAll(f), {}), then: (res) => expect(res.body.data.length).toBeGreaterThan(0) },
    { name: 'a page of one, with Link', status: 200, call: () => ({ query: { limit: '1', type: 'ticket.created' } }), then: hasLink },
    {
      name: 'catching up after the oldest event',
      status: 200,
      call: async (f) => {
        const all = (await api('GET', '/events', { key: f.key.value })).body.data;
        return { query: { after: all.at(-1).id, ticketId: String(f.tickets[0]) } };
      },
      then: (res) => expect(res.body.nextCursor).toEqual(expect.any(String)),
    },
    { name: 'an unknown event to catch up after', status: 422, code: 'validation_failed', call: () => ({ query: { after: 'evt_01ARZ3NDEKTSV4RRFFQ69G5FAV' } }) },
    { name: 'a type outside the feed', status: 422, code: 'validation_failed', call: () => ({ query: { type: 'webhook.test' } }) },
  ],
  listEventTypes: [
    {
      name: 'the catalogue, for a key with a single unrelated scope',
      status: 200,
      call: async (f) => ({ key: (await f.ws.key({ scopes: ['kb:read'] })).value }),
      then: (res) => expect(res.body.data.map((e: { type: string }) => e.type)).toEqual(Object.keys(doc.webhooks)),
    },
  ],
  listAuditLog: [
    { name: 'the workspace’s entries', status: 200, call: () => ({}), then: (res) => expect(res.body.data.map((e: { action: string }) => e.action)).toContain('workspace.created') },
    { name: 'a page of one, with Link', status: 200, call: () => ({ query: { limit: '1' } }), then: hasLink },
    { name: 'by action and actor type', status: 200, call: () => ({ query: { action: 'api_key.created', actorType: 'operator' } }), then: (res) => expect(res.body.data.length).toBeGreaterThan(0) },
    { name: 'a key whose role is not admin', status: 403, code: 'forbidden', call: (f) => ({ key: f.viewer.value }) },
    { name: 'an action that is not one', status: 422, code: 'validation_failed', call: () => ({ query: { action: 'api_key.exploded' } }) },
  ],
};

// ---- The document, and checking an answer against it ----------------------------------------

const doc = (await dereference(structuredClone(buildOpenApiDocument()) as unknown as Parameters<typeof dereference>[0])) as any;
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
// A CommonJS module: Node hands its module.exports to a default import, the plugin is `.default`.
ajvFormats.default(ajv);
// OpenAPI's `discriminator` (the destination's `type`) only helps client generators pick a member:
// the members' `const` tags, under `oneOf`, are what the answer is checked against.
ajv.addKeyword('discriminator');
const validators = new Map<object, ReturnType<typeof ajv.compile>>();
function validatorOf(schema: object) {
  let v = validators.get(schema);
  if (!v) validators.set(schema, (v = ajv.compile(schema)));
  return v;
}

const operationOf = (route: RouteDef) => doc.paths[route.path][route.method.toLowerCase()];

/** Headers the API sets; one that is sent must be documented on that response. */
const API_HEADERS = ['X-Request-Id', 'RateLimit-Policy', 'RateLimit', 'Retry-After', 'Idempotent-Replayed', 'Link', 'WWW-Authenticate', 'ETag'];

function conforms(route: RouteDef, res: Res, label: string) {
  const op = operationOf(route);
  const documented = op.responses[String(res.status)] ?? (res.status >= 500 ? op.responses['5XX'] : undefined);
  expect(documented, `${label}: status ${res.status} is not documented (${res.text.slice(0, 300)})`).toBeDefined();

  const mediaTypes = Object.keys(documented.content ?? {});
  if (mediaTypes.length === 0) {
    expect(res.text, `${label}: a body where none is documented`).toBe('');
  } else {
    expect(mediaTypes).toHaveLength(1);
    expect(res.headers.get('content-type')?.split(';')[0], `${label}: Content-Type`).toBe(mediaTypes[0]);
    const validate = validatorOf(documented.content[mediaTypes[0]].schema);
    expect(validate(res.body), `${label}: body does not match the schema: ${ajv.errorsText(validate.errors)}\n${res.text.slice(0, 500)}`).toBe(true);
  }

  const headers: Record<string, any> = documented.headers ?? {};
  for (const name of API_HEADERS) {
    const value = res.headers.get(name);
    const spec = headers[name];
    if (value === null) {
      expect(spec?.required ?? false, `${label}: the required header ${name} is missing`).toBe(false);
      continue;
    }
    expect(spec, `${label}: the header ${name} is sent but not documented for ${res.status}`).toBeDefined();
    const typed = spec.schema.type === 'integer' && /^\d+$/.test(value) ? Number(value) : value;
    const validate = validatorOf(spec.schema);
    expect(validate(typed), `${label}: header ${name}: ${value}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  }
  // The limit headers accompany every answer to a recognised key.
  if (res.status !== 401) {
    expect(res.headers.get('ratelimit-policy'), label).not.toBeNull();
    expect(res.headers.get('ratelimit'), label).not.toBeNull();
  }
  if (route.paged && res.status < 300) expect(res.headers.has('link'), `${label}: Link iff nextCursor`).toBe(res.body.nextCursor !== null);
}

// ---- Fixtures, made through the API in a fresh workspace --------------------------------------

function pathOf(route: RouteDef, call: Call) {
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (call.params?.[name] === undefined) throw new Error(`${route.operationId}: no value for the path parameter ${name}`);
    return encodeURIComponent(String(call.params[name]));
  });
  const query = new URLSearchParams(call.query ?? {}).toString();
  return query ? `${path}?${query}` : path;
}

const byOperation = new Map(routes.map((r) => [r.operationId, r]));
async function send(f: Fixtures, route: RouteDef, call: Call) {
  const key = call.key === undefined ? f.key.value : (call.key ?? undefined);
  return api(route.method, pathOf(route, call), { key, body: call.body, rawBody: call.rawBody, headers: call.headers });
}

/** Fixture calls are checked against the document too. */
async function made(f: Fixtures, operationId: string, call: Call, status: number) {
  const route = byOperation.get(operationId)!;
  const res = await send(f, route, call);
  expect(res.status, `fixture ${operationId}: ${res.text}`).toBe(status);
  conforms(route, res, `fixture ${operationId}`);
  return res.body;
}

/** Waits until the events feed serves the creation of each of the fixture's tickets (polled every 100 ms: one read of the feed each time). */
async function feedServesAll(f: Fixtures) {
  const served = async () => (await api('GET', '/events?type=ticket.created&limit=100', { key: f.key.value })).body.data.length;
  await expect.poll(served, { timeout: 30_000, interval: 100 }).toBeGreaterThanOrEqual(f.tickets.length);
}

async function createFixtures(): Promise<Fixtures> {
  const ws = await createTestWorkspace('OpenAPI conformance');
  const key = await ws.key({ name: 'Conformance' });
  const viewer = await ws.key({ name: 'Conformance viewer', role: ws.roles.viewer.id });
  const support = ws.boards.find((b) => b.name === 'Support')!;
  const fieldId = (name: string) => support.fields.find((fl) => fl.name === name)!.id;
  const board = { id: support.id, product: fieldId('Product'), orderNumber: fieldId('Order number') };
  const ticketBody = (extra: Record<string, unknown> = {}) => ({
    boardId: board.id,
    subject: 'Checkout fails',
    description: 'The pay button does nothing',
    requesterEmail: 'customer@example.com',
    priority: 'high',
    fields: [
      { fieldId: board.product, value: 'Web' },
      { fieldId: board.orderNumber, value: 'A-1001' },
    ],
    ...extra,
  });
  const f: Fixtures = { ws, key, viewer, board, tickets: [], articles: [], ticketBody, webhooks: [], deliveryId: '' };
  for (const subject of ['First', 'Second']) f.tickets.push((await made(f, 'createTicket', { body: ticketBody({ subject }) }, 201)).id);
  for (const body of ['Looking into it', 'Fixed']) await made(f, 'addTicketComment', { params: { id: f.tickets[0] }, body: { body } }, 201);
  for (const [title, status] of [['Resetting a password', 'published'], ['Draft notes', 'draft']]) {
    f.articles.push((await made(f, 'createKnowledgeBaseArticle', { body: { title, body: 'Text', status } }, 201)).id);
  }
  // The third is the one a case turns into a broker destination.
  for (const events of [['ticket.created'], ['ticket.state_changed'], ['ticket.updated']]) {
    f.webhooks.push((await made(f, 'createWebhookSubscription', { body: { url: HOOK_URL, events } }, 201)).id);
  }
  f.deliveryId = (await createDelivery(ws, f.webhooks[0])).deliveryId;
  await createDelivery(ws, f.webhooks[0], 'ticket.state_changed');
  return f;
}

// ---- Cases every route gets, derived from the document ----------------------------------------

function genericCases(route: RouteDef, base: Call): Case[] {
  const op = operationOf(route);
  const cases: Case[] = [
    { name: 'no key', status: 401, code: 'invalid_token', call: () => ({ ...base, key: null }) },
    { name: 'an unknown key', status: 401, code: 'invalid_token', call: () => ({ ...base, key: `svc_AAAAAAAAAA_${'A'.repeat(43)}` }) },
  ];
  const allowing = new Set<string>(op.security.flatMap((req: Record<string, string[]>) => Object.values(req).flat()));
  if (allowing.size) {
    cases.push({
      name: 'a key with every scope but those allowed',
      status: 403,
      code: 'insufficient_scope',
      call: async (f) => ({ ...base, key: (await f.ws.key({ scopes: API_SCOPES.filter((s) => !allowing.has(s)) })).value }),
      then: (res) => expect(res.headers.get('www-authenticate')).toBe(`Bearer error="insufficient_scope", scope="${[...allowing].join(' ')}"`),
    });
  }
  if (/\{\w+\}/.test(route.path)) {
    const params = Object.fromEntries(Object.keys(base.params ?? {}).map((k) => [k, '0']));
    cases.push({ name: 'an id that no record can have', status: 404, code: 'not_found', call: () => ({ ...base, params }) });
  }
  // Every route refuses query parameters it does not define (README, "API conventions").
  cases.push({
    name: 'an unknown query parameter',
    status: 422,
    code: 'validation_failed',
    call: () => ({ ...base, query: { ...base.query, colour: 'red' } }),
    then: (res) => expect(res.body.errors).toEqual([{ path: 'query/colour', message: 'is not a known member' }]),
  });
  if (op.parameters.some((p: { name: string }) => p.name === 'limit')) {
    cases.push({ name: 'a page size of 0', status: 422, code: 'validation_failed', call: () => ({ ...base, query: { ...base.query, limit: '0' } }) });
  }
  if (op.requestBody) {
    const json = { 'content-type': 'application/json' };
    cases.push(
      { name: 'malformed JSON', status: 400, code: 'invalid_json', call: () => ({ ...base, body: undefined, rawBody: '{"oops', headers: json }) },
      { name: 'a body that is not JSON', status: 415, code: 'unsupported_media_type', call: () => ({ ...base, body: undefined, rawBody: 'hello', headers: { 'content-type': 'text/plain' } }) },
      {
        name: 'a body over 1 MiB',
        status: 413,
        code: 'payload_too_large',
        call: () => ({ ...base, body: undefined, rawBody: `{"a":"${'x'.repeat(MAX_BODY_BYTES)}"}`, headers: json }),
      },
      { name: 'a JSON array for the object', status: 422, code: 'validation_failed', call: () => ({ ...base, body: [] }) },
    );
  }
  if (op.parameters.some((p: { name: string }) => p.name === 'Idempotency-Key')) {
    cases.push(
      { name: 'an Idempotency-Key over 255 characters', status: 400, code: 'invalid_header', call: () => ({ ...base, headers: { 'Idempotency-Key': 'k'.repeat(256) } }) },
      {
        name: 'an Idempotency-Key whose first request still runs',
        status: 409,
        code: 'idempotency_request_in_progress',
        call: async (f) => {
          const key = uniqueKey();
          // The hash covers the path without the query, as the handler computes it.
          const path = `/public/v1${pathOf(route, { ...base, query: undefined })}`;
          const hash = requestHash(route.method, path, base.body);
          await idempotencyRepository.claim({ apiKeyId: f.key.record.id, key, requestHash: hash, expiresAt: new Date(Date.now() + 3_600_000) });
          return { ...base, headers: { 'Idempotency-Key': key } };
        },
      },
    );
  }
  cases.push({
    name: 'over the key’s request quota',
    status: 429,
    code: 'rate_limited',
    call: async (f) => {
      const limited = await f.ws.key({ name: 'One a minute' });
      // Before its first use, so the cached principal carries the limit.
      await prisma.apiKey.update({ where: { id: limited.record.id }, data: { requestsPerMinute: 1 } });
      expect((await api('GET', '/me', { key: limited.value })).status).toBe(200);
      return { ...base, key: limited.value };
    },
  });
  return cases;
}

// ---- The tests ---------------------------------------------------------------------------------

describe('every route answers as the OpenAPI document says', () => {
  // The first fixtures pay for the migrations, the schema and the caches (seconds on a busy
  // machine): in the hook, so that no route's test carries them within its own timeout.
  beforeAll(() => createFixtures(), 120_000);

  it('has cases for every route of the table, and none for routes that are gone', () => {
    const missing = routes.map((r) => r.operationId).filter((id) => !CASES[id]?.some((c) => c.status < 300));
    expect(missing, `no success case for operationId ${missing.join(', ')}: add cases to CASES in test/api/conformance.test.ts`).toEqual([]);
    expect(Object.keys(CASES).filter((id) => !byOperation.has(id))).toEqual([]);
  });

  for (const route of routes) {
    it(`${route.operationId}: ${route.method} ${route.path}`, async () => {
      const own = CASES[route.operationId];
      if (!own) throw new Error(`no conformance cases for operationId ${route.operationId}: add them to CASES in test/api/conformance.test.ts`);
      const f = await createFixtures();
      const success = own.find((c) => c.status < 300);
      if (!success) throw new Error(`no success case for operationId ${route.operationId}`);
      const base = await success.call(f);
      const exercised = new Set<string>();
      const seenHeaders = new Set<string>();
      for (const c of [...own, ...genericCases(route, base)]) {
        const label = `${route.operationId} (${c.name})`;
        const res = await send(f, route, await c.call(f));
        expect(res.status, `${label}: ${res.text.slice(0, 500)}`).toBe(c.status);
        if (c.code) expect(res.body.code, label).toBe(c.code);
        conforms(route, res, label);
        c.then?.(res, f);
        exercised.add(String(res.status));
        if (res.status < 300) for (const h of API_HEADERS) if (res.headers.has(h)) seenHeaders.add(h);
      }
      const op = operationOf(route);
      const documented = Object.keys(op.responses).filter((s) => s !== '5XX' && !PRODUCED_ELSEWHERE[route.operationId]?.includes(s));
      expect(documented.filter((s) => !exercised.has(s)), `${route.operationId}: documented statuses no case produced`).toEqual([]);
      const successHeaders = Object.keys(op.responses[String(route.status ?? 200)].headers ?? {});
      expect(successHeaders.filter((h) => !seenHeaders.has(h)), `${route.operationId}: documented success headers no case produced`).toEqual([]);
    });
  }
});
