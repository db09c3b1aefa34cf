// `npm run cli -- workspaces create|list` (the commands, in process: the admin channel of a running
// service runs the same runCommand). A new workspace starts as the demo one does, its administrator
// signs in with the password printed once, `keys create --workspace` gives it keys, and two
// workspaces made this way see nothing of each other.
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../src/admin/commands.ts';
import { sessionService } from '../../src/auth/session.service.ts';
import { prisma } from '../../src/db/db.ts';
import { api, ensureMigrated, randomSuffix } from '../support/fixtures.ts';

async function run(...argv: string[]): Promise<string> {
  const outcome = await runCommand(argv);
  if (!outcome.ok) throw new Error(outcome.error);
  return outcome.output;
}

async function createWorkspace(label: string) {
  const suffix = randomSuffix();
  const domain = `https://${label}-${suffix}.example.test`;
  const email = `owner-${suffix}@example.test`;
  const out = await run('workspaces', 'create', '--name', `${label} ${suffix}`, '--domain', `${domain}/ignored/path`, '--admin-email', email);
  const password = new RegExp(`^  ${email.replace(/[.]/g, '\\.')} / (\\S+)$`, 'm').exec(out)?.[1];
  expect(password, out).toBeDefined();
  const keyOut = await run('keys', 'create', '--workspace', domain, '--name', 'Integration', '--role', 'Administrator', '--scopes', 'tickets:read,tickets:write,boards:read');
  return { domain, email, password: password!, out, key: keyOut.trim().split('\n').at(-1)! };
}

describe('npm run cli -- workspaces create|list', () => {
  it('creates usable, isolated workspaces: roles, a starter board, an administrator who signs in, keys', async () => {
    await ensureMigrated();
    const a = await createWorkspace('alpha');
    const b = await createWorkspace('beta');
    expect(a.out).toContain(`at ${a.domain}: roles Administrator, Agent, Viewer; board Support.`);

    // As the demo workspace: the standard roles, and the Support board with its states, priorities and fields.
    const wsA = await prisma.workspace.findUniqueOrThrow({ where: { domain: a.domain }, include: { roles: true, boards: { include: { states: true, fields: true } } } });
    expect(wsA.roles.map((r) => r.name).sort()).toEqual(['Administrator', 'Agent', 'Viewer']);
    expect(wsA.boards).toHaveLength(1);
    expect(wsA.boards[0]).toMatchObject({ name: 'Support', priorities: ['low', 'normal', 'high', 'urgent'] });
    expect(wsA.boards[0].states.map((s) => s.name)).toEqual(expect.arrayContaining(['New', 'In progress', 'Resolved', 'Closed']));
    expect(wsA.boards[0].fields.map((f) => f.name)).toEqual(expect.arrayContaining(['Product', 'Order number']));

    // The administrator's first sign-in, printed once.
    const signedIn = await sessionService.signIn({ email: a.email, password: a.password, workspace: a.domain });
    expect(signedIn.principal).toMatchObject({ isAdmin: true, workspace: { domain: a.domain } });

    const listed = await run('workspaces', 'list');
    expect(listed.split('\n')[0]).toMatch(/^ID +ADDRESS +NAME +CREATED$/);
    expect(listed).toContain(a.domain);
    expect(listed).toContain(b.domain);
    expect(listed).not.toContain(a.password);

    // A ticket of A, through A's key.
    const boards = await api('GET', '/boards', { key: a.key });
    expect(boards.status).toBe(200);
    const board = boards.body.data[0];
    const product = board.fields.find((f: { name: string }) => f.name === 'Product');
    const ticket = await api('POST', '/tickets', { key: a.key, body: { boardId: board.id, subject: 'Only for alpha', requesterEmail: 'c@example.test', fields: [{ fieldId: product.id, value: 'Web' }] } });
    expect(ticket.status, ticket.text).toBe(201);
    expect((await api('GET', `/tickets/${ticket.body.id}`, { key: a.key })).status).toBe(200);

    // B's key sees none of it.
    expect((await api('GET', `/tickets/${ticket.body.id}`, { key: b.key })).status).toBe(404);
    expect((await api('GET', `/boards/${board.id}`, { key: b.key })).status).toBe(404);
    const bBoards = await api('GET', '/boards', { key: b.key });
    expect(bBoards.body.data.map((x: { id: string }) => x.id)).not.toContain(board.id);
  });

  it('refuses a taken address, a bad address or e-mail, and missing options, creating nothing', async () => {
    await ensureMigrated();
    const a = await createWorkspace('gamma');
    const before = await prisma.workspace.count();
    for (const argv of [
      ['workspaces', 'create', '--name', 'Again', '--domain', a.domain, '--admin-email', 'x@example.test'],
      ['workspaces', 'create', '--name', 'Bad', '--domain', 'ftp://files.example.test', '--admin-email', 'x@example.test'],
      ['workspaces', 'create', '--name', 'Bad', '--domain', `https://bad-${randomSuffix()}.example.test`, '--admin-email', 'not an e-mail'],
      ['workspaces', 'create', '--name', 'Missing'],
    ]) {
      const outcome = await runCommand(argv);
      expect(outcome.ok, argv.join(' ')).toBe(false);
    }
    expect(await prisma.workspace.count()).toBe(before);
  });
});
