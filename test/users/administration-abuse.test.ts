// Hostile input to workspace administration: ids of another workspace, a role that would see
// another workspace's board, 10,000 boards in a list, keys reaching for what only people do, roles
// that may not administer. Each is a cheap 4xx that says which rule failed.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { prisma } from '../../src/db/db.ts';
import { newId } from '../../src/ids.ts';
import { codeOf, gql, signIn, type Session } from './admin-kit.ts';
import type { Ws } from '../tickets/helpers.ts';

const CREATE_ROLE = `mutation($input: CreateRoleInput!) { createRole(input: $input) { id } }`;
let ws: Ws;
let other: Ws;
let admin: Session;
let key: string;

beforeAll(async () => {
  ws = await createTestWorkspace('Abuse');
  other = await createTestWorkspace('Other');
  admin = await signIn(ws.admin.email!);
  key = (await ws.key()).value;
});

describe('ids of another workspace', () => {
  it('are not found, or not a board / not a role, and change nothing', async () => {
    const theirBoard = other.boards[0].id;
    expect((await api('PATCH', `/boards/${theirBoard}`, { key, body: { name: 'Mine now' } })).status).toBe(404);
    expect((await api('POST', `/boards/${theirBoard}/archive`, { key })).status).toBe(404);
    expect((await api('PATCH', `/users/${other.admin.id}`, { key, body: { roleId: ws.roles.viewer.id } })).status).toBe(404);
    expect((await api('POST', `/users/${other.admin.id}/deactivate`, { key })).status).toBe(404);
    const agent = await prisma.user.create({ data: { workspaceId: ws.workspace.id, userName: 'a', fullName: 'A', email: `a-${ws.workspace.id}@example.test`, roleId: ws.roles.agent.id } });
    const foreignRole = await api('PATCH', `/users/${agent.id}`, { key, body: { roleId: other.roles.admin.id } });
    expect(foreignRole.status).toBe(422);
    expect(foreignRole.body.errors).toEqual([{ path: '/roleId', message: 'is not a role of this workspace' }]);
    const role = await gql(`mutation($id: Int!) { updateRole(id: $id, input: { name: "x" }) { id } }`, { id: other.roles.viewer.id }, { session: admin });
    expect(codeOf(role)).toBe('not_found');
    expect((await prisma.board.findUniqueOrThrow({ where: { id: theirBoard } })).name).not.toBe('Mine now');
    expect((await prisma.user.findUniqueOrThrow({ where: { id: other.admin.id } })).deactivatedAt).toBeNull();
    expect((await prisma.user.findUniqueOrThrow({ where: { id: agent.id } })).roleId).toBe(ws.roles.agent.id);
  });

  it('a role may not see a board of another workspace', async () => {
    const res = await gql(CREATE_ROLE, { input: { name: 'Spy', boardIds: [ws.boards[0].id, other.boards[0].id] } }, { session: admin });
    expect(codeOf(res)).toBe('validation_failed');
    expect(res.errors![0].extensions.errors).toEqual([{ path: '/boardIds/1', message: `is not a board (${other.boards[0].id})` }]);
    // Nor one that does not exist at all, nor through an update.
    const ghost = newId('brd');
    const made = await gql(CREATE_ROLE, { input: { name: 'Fine', boardIds: [ws.boards[0].id] } }, { session: admin });
    const update = await gql(`mutation($id: Int!, $b: [String!]) { updateRole(id: $id, input: { boardIds: $b }) { id } }`, { id: made.data.createRole.id, b: [ghost] }, { session: admin });
    expect(update.errors![0].extensions.errors).toEqual([{ path: '/boardIds/0', message: `is not a board (${ghost})` }]);
    expect(await prisma.roleBoard.count({ where: { role: { name: 'Spy' } } })).toBe(0);
  });
});

describe('lists over their bounds', () => {
  const many = Array.from({ length: 10_000 }, () => newId('brd'));

  it('10,000 boards for a role: 422 naming the bound, before any board is read', async () => {
    const res = await gql(CREATE_ROLE, { input: { name: 'Everything', boardIds: many } }, { session: admin });
    expect(codeOf(res)).toBe('validation_failed');
    expect(res.errors![0].extensions.errors).toEqual([{ path: '/boardIds', message: 'Too big: expected array to have <=100 items' }]);
  });

  it('the bounds are in the OpenAPI document, and REST refuses past them', async () => {
    const doc = (await api('GET', '/openapi.json')).body;
    const board = doc.paths['/boards'].post.requestBody.content['application/json'].schema;
    expect(board.properties.priorities.maxItems).toBe(20);
    expect(board.properties.fields.maxItems).toBe(50);
    expect(board.properties.states.maxItems).toBe(30);
    expect(board.properties.fields.items.properties.options.maxItems).toBe(100);
    const res = await api('POST', '/boards', { key, body: { name: 'Big', priorities: many, states: [{ name: 'Open', category: 'open' }] } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ path: '/priorities', message: 'Too big: expected array to have <=20 items' }]);
  });
});

describe('who may administer', () => {
  it('keys never manage roles, whatever their role', async () => {
    expect(codeOf(await gql(CREATE_ROLE, { input: { name: 'Key-made' } }, { key }))).toBe('forbidden');
  });

  it('a key needs the write scope, and an admin role besides', async () => {
    const reader = (await ws.key({ scopes: ['boards:read', 'users:read'] })).value;
    const noScope = await api('POST', '/boards', { key: reader, body: { name: 'X', priorities: ['a'], states: [{ name: 'O', category: 'open' }] } });
    expect(noScope.status).toBe(403);
    expect(noScope.body.code).toBe('insufficient_scope');
    expect(noScope.headers.get('www-authenticate')).toContain('scope="boards:write"');
    expect((await api('POST', '/users/1/deactivate', { key: reader })).body.code).toBe('insufficient_scope');
    const agentKey = (await ws.key({ role: ws.roles.agent.id })).value;
    const agentRefused = await api('POST', '/boards', { key: agentKey, body: { name: 'X', priorities: ['a'], states: [{ name: 'O', category: 'open' }] } });
    expect([agentRefused.status, agentRefused.body.code]).toEqual([403, 'forbidden']);
    expect((await api('POST', '/invitations', { key: agentKey, body: { email: 'a@example.test', roleId: ws.roles.viewer.id } })).status).toBe(403);
  });

  it('a person without an admin role manages nothing', async () => {
    const password = await (await import('../../src/access/password.ts')).hashPassword('correct horse battery staple');
    const agent = await prisma.user.create({ data: { workspaceId: ws.workspace.id, userName: 'ag', fullName: 'Ag', email: `ag-${ws.workspace.id}@example.test`, roleId: ws.roles.agent.id, passwordHash: password } });
    const session = await signIn(agent.email!);
    expect(codeOf(await gql(CREATE_ROLE, { input: { name: 'Mine' } }, { session }))).toBe('forbidden');
    expect(codeOf(await gql(`mutation($id: Int!) { deactivateUser(id: $id) { id } }`, { id: ws.admin.id }, { session }))).toBe('forbidden');
    expect(codeOf(await gql(`mutation { createBoard(input: { name: "B", priorities: ["a"], states: [{ name: "O", category: open }] }) { id } }`, {}, { session }))).toBe('forbidden');
    expect(codeOf(await gql(`{ invitations { id } }`, {}, { session }))).toBe('forbidden');
  });

  it('built-in roles are not changed', async () => {
    const res = await gql(`mutation($id: Int!) { updateRole(id: $id, input: { allBoards: false }) { id } }`, { id: ws.roles.agent.id }, { session: admin });
    expect(codeOf(res)).toBe('conflict');
  });
});
