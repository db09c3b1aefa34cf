// Workspace administration from outside (issue 49): an administrator makes a board and a role that
// sees only it; a key with that role reads that board's tickets, events, deliveries and job results
// and nothing of another board (404); a person moved to the role loses the other board at their
// next request; a deactivated person's session and keys stop at once; every change is in the
// audit log with before and after.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { prisma } from '../../src/db/db.ts';
import { API_SCOPES } from '../../src/access/principal.ts';
import { jobRunner } from '../../src/jobs/job-runner.ts';
import { billingBoard, createTicket, eventsOf, ticketBody, type Ws } from '../tickets/helpers.ts';
import { codeOf, gql, gqlData, invitedPerson, signIn, type Session } from './admin-kit.ts';
import { writeDelivery } from '../webhooks/fixtures.ts';

const CREATE_ROLE = `mutation($input: CreateRoleInput!) { createRole(input: $input) { id name isAdmin allBoards permissions boardIds builtIn } }`;
const UPDATE_ROLE = `mutation($id: Int!, $input: UpdateRoleInput!) { updateRole(id: $id, input: $input) { id allBoards boardIds } }`;
const CREATE_KEY = `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { value apiKey { id } } }`;
const BOARD = `query($id: String!) { board(id: $id) { id name } }`;

const escalations = {
  name: 'Escalations',
  description: 'What support cannot solve alone',
  priorities: ['p2', 'p1'],
  fields: [
    { name: 'Severity', type: 'select', required: true, options: ['minor', 'major'] },
    { name: 'Customer', type: 'text' },
  ],
  states: [
    { name: 'Triage', category: 'open' },
    { name: 'Fixing', category: 'open', initial: true },
    { name: 'Done', category: 'solved' },
  ],
};

let ws: Ws;
let admin: Session;
let adminKey: string;
let boardA: { id: string; fields: { id: string; name: string }[] };
let boardB: string;
let role: { id: number };

const ticketInA = () => ({ boardId: boardA.id, subject: 'Outage', requesterEmail: 'c@example.com', fields: [{ fieldId: boardA.fields[0].id, value: 'major' }] });

async function keyWithRole(roleId: number, scopes: string[] = [...API_SCOPES]) {
  return (await gqlData(CREATE_KEY, { input: { name: `k-${roleId}-${Math.random()}`, roleId, scopes } }, { session: admin })).createApiKey.value as string;
}

const auditOf = (action: string, targetId: string | number) =>
  prisma.auditEntry.findMany({ where: { workspaceId: ws.workspace.id, action, targetId: String(targetId) }, orderBy: { occurredAt: 'asc' } });

beforeAll(async () => {
  ws = await createTestWorkspace('Administration');
  admin = await signIn(ws.admin.email!);
  adminKey = (await ws.key()).value;
  const created = await api('POST', '/boards', { key: adminKey, body: escalations });
  expect(created.status, created.text).toBe(201);
  boardA = created.body;
  boardB = billingBoard(ws).board.id;
  role = (await gqlData(CREATE_ROLE, { input: { name: 'Escalation engineer', permissions: ['tickets.write', 'webhooks.manage'], boardIds: [boardA.id] } }, { session: admin })).createRole;
});

describe('boards', () => {
  it('makes a board with its fields, states and priorities, and records it', async () => {
    expect(boardA).toMatchObject({
      id: expect.stringMatching(/^brd_/),
      name: 'Escalations',
      priorities: ['p2', 'p1'],
      fields: [
        { id: expect.stringMatching(/^fld_/), name: 'Severity', type: 'select', required: true, options: ['minor', 'major'] },
        { id: expect.stringMatching(/^fld_/), name: 'Customer', type: 'text', required: false, options: [] },
      ],
      states: [{ name: 'Triage' }, { name: 'Fixing' }, { name: 'Done' }],
      archivedAt: null,
    });
    // A new ticket starts in the state marked initial, with the first priority.
    const ticket = await api('POST', '/tickets', { key: adminKey, body: ticketInA() });
    expect(ticket.status, ticket.text).toBe(201);
    expect(ticket.body).toMatchObject({ state: { name: 'Fixing' }, priority: 'p2' });
    const [entry] = await auditOf('board.created', boardA.id);
    expect(entry).toMatchObject({ actorType: 'api_key' });
    expect((entry.changes as { field: string }[]).map((c) => c.field)).toEqual(['name', 'description', 'priorities', 'fields', 'states']);
  });

  it('renames, archives (no new tickets, the old ones stay) and unarchives, recording each', async () => {
    const made = await api('POST', '/boards', { key: adminKey, body: { ...escalations, name: 'Short-lived' } });
    const id = made.body.id as string;
    const ticketBodyIn = { boardId: id, subject: 'Before', requesterEmail: 'c@example.com', fields: [{ fieldId: made.body.fields[0].id, value: 'minor' }] };
    const before = await api('POST', '/tickets', { key: adminKey, body: ticketBodyIn });
    expect(before.status).toBe(201);
    // A subscription filtering on the board, saved before the archive.
    const sub = await api('POST', '/webhooks', { key: adminKey, body: { url: 'https://93.184.216.34/hook', events: ['ticket.created'], boards: [id] } });
    expect(sub.status, sub.text).toBe(201);

    const renamed = await api('PATCH', `/boards/${id}`, { key: adminKey, body: { name: 'Renamed', description: null } });
    expect(renamed.body).toMatchObject({ id, name: 'Renamed' });
    const archived = await api('POST', `/boards/${id}/archive`, { key: adminKey });
    expect(archived.status).toBe(200);
    expect(archived.body.archivedAt).toEqual(expect.any(String));
    // The rules cache dropped the board at once: no new ticket, with the rule named.
    const refused = await api('POST', '/tickets', { key: adminKey, body: ticketBodyIn });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([{ path: '/boardId', message: 'is an archived board: it takes no new tickets' }]);
    // Its tickets stay readable and changeable; the subscription's filter stays valid.
    expect((await api('GET', `/tickets/${before.body.id}`, { key: adminKey })).status).toBe(200);
    expect((await api('PATCH', `/tickets/${before.body.id}`, { key: adminKey, body: { subject: 'After' } })).status).toBe(200);
    expect((await api('PATCH', `/webhooks/${sub.body.id}`, { key: adminKey, body: { boards: [id] } })).status).toBe(200);
    // Archiving again changes and records nothing.
    expect((await api('POST', `/boards/${id}/archive`, { key: adminKey })).body.archivedAt).toBe(archived.body.archivedAt);

    expect((await api('POST', `/boards/${id}/unarchive`, { key: adminKey })).body.archivedAt).toBeNull();
    expect((await api('POST', '/tickets', { key: adminKey, body: ticketBodyIn })).status).toBe(201);

    expect((await auditOf('board.updated', id)).map((e) => e.changes)).toEqual([
      [
        { field: 'name', before: 'Short-lived', after: 'Renamed' },
        { field: 'description', before: escalations.description, after: null },
      ],
    ]);
    expect((await auditOf('board.archived', id)).map((e) => e.changes)).toEqual([[{ field: 'archivedAt', before: null, after: archived.body.archivedAt }]]);
    expect(await auditOf('board.unarchived', id)).toHaveLength(1);
  });

  it('refuses what breaks the board rules, each at its member', async () => {
    const res = await api('POST', '/boards', {
      key: adminKey,
      body: {
        name: 'Bad',
        priorities: ['a', 'A'],
        fields: [{ name: 'Kind', type: 'select' }, { name: 'Note', type: 'text', options: ['x'] }, { name: 'kind', type: 'text' }],
        states: [{ name: 'One', category: 'open', initial: true }, { name: 'Two', category: 'open', initial: true }],
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['/fields/0/options', '/fields/1/options', '/fields/2/name', '/priorities/1', '/states']);
  });
});

describe('a role that sees only board A', () => {
  let key: string;
  let ticketA: { id: number };
  let ticketB: { id: number };

  beforeAll(async () => {
    key = await keyWithRole(role.id);
    ticketA = (await api('POST', '/tickets', { key: adminKey, body: ticketInA() })).body;
    ticketB = await createTicket(ws, adminKey, { boardId: boardB, fields: [{ fieldId: billingBoard(ws).invoice, value: 'INV-1' }], priority: 'normal' });
  });

  it('is made with its boards and permissions, and recorded', async () => {
    expect(role).toMatchObject({ name: 'Escalation engineer', isAdmin: false, allBoards: false, permissions: ['tickets.write', 'webhooks.manage'], boardIds: [boardA.id], builtIn: false });
    const [entry] = await auditOf('role.created', role.id);
    expect(entry).toMatchObject({ actorType: 'person', actorId: String(ws.admin.id) });
    expect(entry.changes).toContainEqual({ field: 'boardIds', before: null, after: [boardA.id] });
  });

  it('gives its key the tickets of board A only; board B’s answer 404', async () => {
    expect((await api('GET', '/boards', { key })).body.data.map((b: { id: string }) => b.id)).toEqual([boardA.id]);
    expect((await api('GET', `/boards/${boardB}`, { key })).status).toBe(404);
    const tickets = (await api('GET', '/tickets', { key })).body.data.map((t: { boardId: string }) => t.boardId);
    expect(tickets.length).toBeGreaterThan(0);
    expect(new Set(tickets)).toEqual(new Set([boardA.id]));
    expect((await api('GET', `/tickets/${ticketA.id}`, { key })).status).toBe(200);
    expect((await api('GET', `/tickets/${ticketB.id}`, { key })).status).toBe(404);
    expect((await api('GET', `/tickets/${ticketB.id}/history`, { key })).status).toBe(404);
    expect((await api('POST', '/tickets', { key, body: ticketBody(ws, { boardId: boardB }) })).status).toBe(422);
  });

  it('gives its key the events of board A only', async () => {
    const feed = await api('GET', '/events?limit=100', { key });
    expect(feed.status).toBe(200);
    const ids = feed.body.data.map((e: { data: { id: number } }) => e.data.id);
    expect(ids).toContain(ticketA.id);
    expect(ids).not.toContain(ticketB.id);
    expect((await api('GET', `/events?ticketId=${ticketB.id}`, { key })).body.data).toEqual([]);
  });

  it('gives its key the deliveries of board A only; board B’s subscription answers 404', async () => {
    const subscribe = async (boards: string[]) => (await api('POST', '/webhooks', { key: adminKey, body: { url: 'https://93.184.216.34/x', events: ['ticket.created'], boards } })).body.id as string;
    const [subA, subB] = [await subscribe([boardA.id]), await subscribe([boardB])];
    const [eventA] = await eventsOf(ticketA.id);
    const [eventB] = await eventsOf(ticketB.id);
    await writeDelivery(eventA.id, subA);
    await writeDelivery(eventB.id, subB);
    const log = await api('GET', `/webhooks/${subA}/deliveries`, { key });
    expect(log.status, log.text).toBe(200);
    expect(log.body.data.map((d: { eventId: string }) => d.eventId)).toEqual([eventA.id]);
    expect((await api('GET', `/webhooks/${subB}/deliveries`, { key })).status).toBe(404);
    expect((await api('GET', `/webhooks/${subB}`, { key })).status).toBe(404);
    // Nor may it subscribe to board B.
    expect((await api('POST', '/webhooks', { key, body: { url: 'https://93.184.216.34/y', events: ['ticket.created'], boards: [boardB] } })).status).toBe(422);
  });

  it('gives its key job results on board A only', async () => {
    const items = [{ create: ticketInA() }, { create: ticketBody(ws, { boardId: boardB, fields: [{ fieldId: billingBoard(ws).invoice, value: 'X' }], priority: 'normal' }) }];
    const accepted = await api('POST', '/tickets/bulk', { key, body: { items } });
    expect(accepted.status, accepted.text).toBe(202);
    await jobRunner.takeNext(ws.workspace.id);
    await jobRunner.runChunk(accepted.body.id);
    const job = await api('GET', `/jobs/${accepted.body.id}`, { key });
    expect(job.body.items.map((i: { status: string; error: { code: string } | null }) => [i.status, i.error?.code ?? null])).toEqual([
      ['succeeded', null],
      ['failed', 'validation_failed'],
    ]);
    // Another key's job is not found.
    expect((await api('GET', `/jobs/${accepted.body.id}`, { key: adminKey })).status).toBe(404);
  });

  it('changes what its keys see at their next request, cached or not, and records the change', async () => {
    expect((await api('GET', `/tickets/${ticketB.id}`, { key })).status).toBe(404);
    await gqlData(UPDATE_ROLE, { id: role.id, input: { boardIds: [boardA.id, boardB] } }, { session: admin });
    expect((await api('GET', `/tickets/${ticketB.id}`, { key })).status).toBe(200);
    await gqlData(UPDATE_ROLE, { id: role.id, input: { boardIds: [boardA.id] } }, { session: admin });
    expect((await api('GET', `/tickets/${ticketB.id}`, { key })).status).toBe(404);
    expect((await auditOf('role.updated', role.id)).map((e) => e.changes)).toEqual([
      [{ field: 'boardIds', before: [boardA.id], after: [boardA.id, boardB].sort() }],
      [{ field: 'boardIds', before: [boardA.id, boardB].sort(), after: [boardA.id] }],
    ]);
  });
});

describe('people', () => {
  it('a person moved to the role loses board B at their next request', async () => {
    const person = await invitedPerson(admin, `mover-${ws.workspace.id}@example.test`, ws.roles.agent.id);
    expect((await gqlData(BOARD, { id: boardB }, { session: person.session })).board.id).toBe(boardB);
    const moved = await gqlData(`mutation($id: Int!) { changeUserRole(id: $id, input: { roleId: ${role.id} }) { id roleId role { name } } }`, { id: person.id }, { session: admin });
    expect(moved.changeUserRole).toEqual({ id: person.id, roleId: role.id, role: { name: 'Escalation engineer' } });
    expect(codeOf(await gql(BOARD, { id: boardB }, { session: person.session }))).toBe('not_found');
    expect((await gqlData(BOARD, { id: boardA.id }, { session: person.session })).board.id).toBe(boardA.id);
    expect((await auditOf('user.role_changed', person.id)).map((e) => e.changes)).toEqual([[{ field: 'roleId', before: ws.roles.agent.id, after: role.id }]]);
  });

  it('a deactivated person’s session and keys stop at once, and come back (keys only) when reactivated', async () => {
    const person = await invitedPerson(admin, `leaver-${ws.workspace.id}@example.test`, ws.roles.admin.id);
    const theirKey = (await gqlData(CREATE_KEY, { input: { name: 'theirs', roleId: ws.roles.agent.id, scopes: ['tickets:read'] } }, { session: person.session })).createApiKey.value;
    expect((await api('GET', '/me', { key: theirKey })).status).toBe(200);
    expect((await gqlData('{ viewer { id } }', {}, { session: person.session })).viewer).toEqual({ id: person.id });

    const off = await gqlData(`mutation($id: Int!) { deactivateUser(id: $id) { id deactivatedAt } }`, { id: person.id }, { session: admin });
    expect(off.deactivateUser.deactivatedAt).toEqual(expect.any(String));
    expect((await gql('{ viewer { id } }', {}, { session: person.session })).data.viewer).toBeNull();
    expect((await api('GET', '/me', { key: theirKey })).status).toBe(401);
    expect(await prisma.session.count({ where: { userId: person.id } })).toBe(0);
    // Signing in again is refused like a wrong password.
    const again = await api('POST', '/graphql', { body: { query: 'mutation($e: String!) { signIn(email: $e, password: "correct horse battery staple") { id } }', variables: { e: `leaver-${ws.workspace.id}@example.test` } } });
    expect(again.body.errors[0].extensions.code).toBe('unauthenticated');

    await gqlData(`mutation($id: Int!) { reactivateUser(id: $id) { id } }`, { id: person.id }, { session: admin });
    expect((await api('GET', '/me', { key: theirKey })).status).toBe(200);
    // The ended session stays ended.
    expect((await gql('{ viewer { id } }', {}, { session: person.session })).data.viewer).toBeNull();
    expect((await auditOf('user.deactivated', person.id)).map((e) => (e.changes as { field: string }[]).map((c) => c.field))).toEqual([['deactivatedAt']]);
    expect(await auditOf('user.reactivated', person.id)).toHaveLength(1);
  });

  it('keeps the last administrator: not demoted, not deactivated, and no one deactivates themselves', async () => {
    const lone = await createTestWorkspace('Lone admin');
    const session = await signIn(lone.admin.email!);
    const demote = await gql(`mutation($id: Int!, $r: Int!) { changeUserRole(id: $id, input: { roleId: $r }) { id } }`, { id: lone.admin.id, r: lone.roles.viewer.id }, { session });
    expect(codeOf(demote)).toBe('last_administrator');
    expect(codeOf(await gql(`mutation($id: Int!) { deactivateUser(id: $id) { id } }`, { id: lone.admin.id }, { session }))).toBe('conflict');
    const key = (await lone.key()).value;
    const viaRest = await api('PATCH', `/users/${lone.admin.id}`, { key, body: { roleId: lone.roles.viewer.id } });
    expect(viaRest.status).toBe(403); // a key never touches an administrator
    // Nor through the role: a custom admin role holding the last administrator keeps its admin flag.
    const custom = (await gqlData(CREATE_ROLE, { input: { name: 'Owners', isAdmin: true, allBoards: true } }, { session })).createRole;
    await gqlData(`mutation($id: Int!, $r: Int!) { changeUserRole(id: $id, input: { roleId: $r }) { id } }`, { id: lone.admin.id, r: custom.id }, { session });
    expect(codeOf(await gql(UPDATE_ROLE, { id: custom.id, input: { isAdmin: false } }, { session }))).toBe('last_administrator');
    expect((await prisma.user.findUniqueOrThrow({ where: { id: lone.admin.id } })).roleId).toBe(custom.id);
  });
});
