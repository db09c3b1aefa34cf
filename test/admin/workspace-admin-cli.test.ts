// `npm run cli -- boards|roles|people …` (the commands in process; a running service's admin
// channel runs the same runCommand): the operator makes a board and a role that sees only it,
// invites a person who accepts the printed link, moves and deactivates them; each is audited as
// the operator's.
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../src/admin/commands.ts';
import { prisma } from '../../src/db/db.ts';
import { createTestWorkspace } from '../support/fixtures.ts';
import { ACCEPT, gqlData, PASSWORD } from '../users/admin-kit.ts';

async function run(...argv: string[]): Promise<string> {
  const outcome = await runCommand(argv);
  if (!outcome.ok) throw new Error(outcome.error);
  return outcome.output;
}

describe('npm run cli -- boards|roles|people', () => {
  it('administers a workspace from the shell, recorded as the operator', async () => {
    const ws = await createTestWorkspace('CLI administration');
    const w = ['--workspace', ws.workspace.domain];
    const body = { name: 'Ops', priorities: ['normal'], fields: [{ name: 'Host', type: 'text', required: true }], states: [{ name: 'Open', category: 'open' }, { name: 'Closed', category: 'closed' }] };
    const created = await run('boards', 'create', '--json', JSON.stringify(body), ...w);
    const boardId = /\((brd_[0-9A-Z]{26})\)/.exec(created)![1];
    expect(created).toMatch(/^Created board "Ops" \(brd_\w+\) in .*: fields Host fld_\w+; states Open, Closed\.$/);
    expect(await run('boards', 'rename', '--id', boardId, '--name', 'Operations', ...w)).toBe(`Renamed board ${boardId} to "Operations".`);
    expect(await run('boards', 'archive', '--id', boardId, ...w)).toMatch(/is archived/);
    expect(await run('boards', 'unarchive', '--id', boardId, ...w)).toMatch(/is open/);
    expect(await run('boards', 'list', ...w)).toMatch(new RegExp(`${boardId}\\s+Operations\\s+1\\s+2\\s+-`));

    expect(await run('roles', 'create', '--name', 'Ops engineer', '--permissions', 'tickets.write', '--boards', boardId, ...w)).toMatch(/^Created role "Ops engineer" \(id \d+\)\.$/);
    const roles = await run('roles', 'list', ...w);
    expect(roles).toMatch(new RegExp(`Ops engineer\\s+no\\s+tickets\\.write\\s+${boardId}\\s+0\\s+no`));
    expect(await run('roles', 'update', '--role', 'Ops engineer', '--boards', 'all', ...w)).toMatch(/boards all/);
    const builtIn = await runCommand(['roles', 'update', '--role', 'Agent', '--name', 'Changed', ...w]);
    expect(builtIn).toEqual({ ok: false, error: expect.stringContaining('built-in roles') });

    const invited = await run('people', 'invite', '--email', `ops-${ws.workspace.id}@example.test`, '--role', 'Ops engineer', ...w);
    const link = invited.trim().split('\n').at(-1)!;
    expect(invited).toContain('not e-mailed');
    const accepted = (await gqlData(ACCEPT, { t: new URL(link).hash.slice(1), n: 'Ops Person', p: PASSWORD })).acceptInvitation;
    expect(await run('people', 'list', ...w)).toMatch(new RegExp(`${accepted.userId}\\s+ops-${ws.workspace.id}@example\\.test\\s+Ops Person\\s+Ops engineer\\s+-`));
    expect(await run('people', 'set-role', '--id', String(accepted.userId), '--role', 'Viewer', ...w)).toBe(`ops-${ws.workspace.id}@example.test now acts as Viewer.`);
    expect(await run('people', 'deactivate', '--id', String(accepted.userId), ...w)).toMatch(/^Deactivated/);
    expect(await run('people', 'reactivate', '--id', String(accepted.userId), ...w)).toMatch(/^Reactivated/);
    // The last administrator stays, for the operator too.
    expect(await runCommand(['people', 'deactivate', '--id', String(ws.admin.id), ...w])).toEqual({ ok: false, error: expect.stringContaining('without an active administrator') });

    const audit = await prisma.auditEntry.findMany({ where: { workspaceId: ws.workspace.id, actorType: 'operator', action: { not: 'workspace.created' } }, orderBy: { occurredAt: 'asc' }, select: { action: true, actorLabel: true, address: true } });
    expect(audit.map((a) => a.action)).toEqual(['board.created', 'board.updated', 'board.archived', 'board.unarchived', 'role.created', 'role.updated', 'user.invited', 'user.role_changed', 'user.deactivated', 'user.reactivated']);
    expect(new Set(audit.map((a) => `${a.actorLabel} ${a.address}`))).toEqual(new Set(['cli null']));
  });
});
