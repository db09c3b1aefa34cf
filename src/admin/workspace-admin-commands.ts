// The operator's side of workspace administration (`npm run cli -- boards|roles|people …`): the
// settings pages' actions without the UI, for the workspace `--workspace` names. They run the
// services the API runs, recorded in the audit log with the actor `operator`; the operator is
// an administrator for them (they hold the database anyway).
import { AppError } from '../errors/errors.ts';
import { OPERATOR } from '../audit/audit.writer.ts';
import { boardAdminService, MAX_BOARDS_PER_WORKSPACE } from '../boards/board-admin.service.ts';
import { boardAdminRepository } from '../boards/board.repository.ts';
import { roleService } from '../users/role.service.ts';
import { roleRepository } from '../users/role.repository.ts';
import { peopleService } from '../users/people.service.ts';
import { peopleRepository } from '../users/people.repository.ts';
import { invitationService } from '../users/invitation.service.ts';

export const ADMIN_USAGE = `  npm run cli -- boards list [--workspace URL]
  npm run cli -- boards create --json '{"name":…,"priorities":[…],"fields":[…],"states":[…]}' [--workspace URL]
  npm run cli -- boards rename --id BOARD --name NAME [--workspace URL]
  npm run cli -- boards archive|unarchive --id BOARD [--workspace URL]
  npm run cli -- roles list [--workspace URL]
  npm run cli -- roles create --name NAME [--admin] [--permissions P[,P…]] [--boards all|BOARD[,BOARD…]] [--workspace URL]
  npm run cli -- roles update --role ROLE [--name NAME] [--admin|--no-admin] [--permissions P[,P…]] [--boards all|BOARD[,BOARD…]] [--workspace URL]
  npm run cli -- people list [--workspace URL]
  npm run cli -- people invite --email EMAIL --role ROLE [--workspace URL]
  npm run cli -- people set-role --id USER --role ROLE [--workspace URL]
  npm run cli -- people deactivate|reactivate --id USER [--workspace URL]`;

export interface AdminValues {
  id?: string;
  name?: string;
  role?: string;
  email?: string;
  json?: string;
  admin?: boolean;
  'no-admin'?: boolean;
  permissions?: string;
  boards?: string;
}

const list = (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean);
const userId = (v: string | undefined) => {
  if (!v || !/^\d{1,9}$/.test(v)) throw new AppError('validation_failed', '--id USER: a user id (npm run cli -- people list)');
  return Number(v);
};
const required = (v: string | undefined, what: string) => {
  if (!v) throw new AppError('validation_failed', `${what} is needed`);
  return v;
};

/** A role by its id or its name. */
async function roleOf(workspaceId: number, nameOrId: string | undefined) {
  const wanted = required(nameOrId, '--role ROLE (an id or a name)');
  const roles = await roleRepository.list(workspaceId, {});
  const role = roles.find((r) => String(r.id) === wanted || r.name === wanted);
  if (!role) throw new AppError('not_found', `No role ${wanted}: ${roles.map((r) => r.name).join(', ')}`);
  return role;
}

/** `--boards all` or a list; absent: unchanged (undefined). */
const boardsOption = (v: string | undefined) => (v === undefined ? {} : v === 'all' ? { allBoards: true } : { allBoards: false, boardIds: list(v) });

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}
const when = (d: Date | null) => (d ? d.toISOString().slice(0, 16).replace('T', ' ') : '-');

/** Runs a boards, roles or people command; undefined for any other noun. */
export async function runAdminCommand(noun: string, verb: string | undefined, v: AdminValues, ws: { id: number; domain: string }): Promise<string | undefined> {
  if (noun === 'boards') {
    if (verb === 'list') {
      const boards = await boardAdminRepository.listAll(ws.id, MAX_BOARDS_PER_WORKSPACE);
      return table([['ID', 'NAME', 'FIELDS', 'STATES', 'ARCHIVED'], ...boards.map((b) => [b.id, b.name, String(b.fields.length), String(b.states.length), when(b.archivedAt)])]);
    }
    if (verb === 'create') {
      let body: unknown;
      try {
        body = JSON.parse(required(v.json, '--json BOARD (the body of POST /boards)'));
      } catch (err) {
        if (err instanceof AppError) throw err;
        throw new AppError('invalid_json', '--json is not JSON');
      }
      const board = await boardAdminService.create(null, ws.id, body, OPERATOR);
      return `Created board "${board.name}" (${board.id}) in ${ws.domain}: fields ${board.fields.map((f) => `${f.name} ${f.id}`).join(', ') || 'none'}; states ${board.states.map((s) => s.name).join(', ')}.`;
    }
    if (verb === 'rename') {
      const board = await boardAdminService.update(null, ws.id, required(v.id, '--id BOARD'), { name: required(v.name, '--name NAME') }, OPERATOR);
      return `Renamed board ${board.id} to "${board.name}".`;
    }
    if (verb === 'archive' || verb === 'unarchive') {
      const board = await boardAdminService.setArchived(null, ws.id, required(v.id, '--id BOARD'), verb === 'archive', OPERATOR);
      return board.archivedAt ? `Board ${board.id} is archived (since ${when(board.archivedAt)}): no new tickets.` : `Board ${board.id} is open for new tickets.`;
    }
  }
  if (noun === 'roles') {
    if (verb === 'list') {
      const roles = await roleRepository.listWithCounts(ws.id);
      return table([
        ['ID', 'NAME', 'ADMIN', 'PERMISSIONS', 'BOARDS', 'ACCOUNTS', 'BUILT-IN'],
        ...roles.map((r) => [String(r.id), r.name, r.isAdmin ? 'yes' : 'no', r.permissions.join(',') || '-', r.allBoards ? 'all' : r.boards.map((b) => b.boardId).join(',') || 'none', String(r._count.users), r.builtIn ? 'yes' : 'no']),
      ]);
    }
    const fields = {
      ...(v.name !== undefined && { name: v.name }),
      ...(v.admin ? { isAdmin: true } : v['no-admin'] ? { isAdmin: false } : {}),
      ...(v.permissions !== undefined && { permissions: list(v.permissions) }),
      ...boardsOption(v.boards),
    };
    if (verb === 'create') {
      const role = await roleService.create(ws.id, { name: required(v.name, '--name NAME'), ...fields }, OPERATOR);
      return `Created role "${role.name}" (id ${role.id}).`;
    }
    if (verb === 'update') {
      const role = await roleService.update(ws.id, (await roleOf(ws.id, v.role)).id, fields, OPERATOR);
      return `Updated role "${role.name}" (id ${role.id}): boards ${role.allBoards ? 'all' : role.boards.map((b) => b.boardId).join(', ') || 'none'}; in force for its people and keys at their next request.`;
    }
  }
  if (noun === 'people') {
    if (verb === 'list') {
      const rows = [['ID', 'E-MAIL', 'NAME', 'ROLE', 'DEACTIVATED']];
      for (let after = 0; ; ) {
        const page = await peopleRepository.listAfter(ws.id, after, 100);
        rows.push(...page.map((u) => [String(u.id), u.email ?? '-', u.fullName, u.role.name, when(u.deactivatedAt)]));
        if (page.length < 100) return table(rows);
        after = page.at(-1)!.id;
      }
    }
    if (verb === 'invite') {
      const role = await roleOf(ws.id, v.role);
      const sent = await invitationService.invite(null, ws.id, { email: required(v.email, '--email EMAIL'), roleId: role.id }, OPERATOR);
      return [
        `Invited ${sent.invitation.email} as ${role.name} until ${when(sent.invitation.expiresAt)} UTC (${sent.emailed ? 'e-mailed' : 'not e-mailed: SMTP is off or failed'}).`,
        'The one-time link, shown this once:',
        sent.link!,
      ].join('\n');
    }
    if (verb === 'set-role') {
      const role = await roleOf(ws.id, v.role);
      const person = await peopleService.changeRole(null, ws.id, userId(v.id), { roleId: role.id }, OPERATOR);
      return `${person.email ?? person.fullName} now acts as ${role.name}.`;
    }
    if (verb === 'deactivate' || verb === 'reactivate') {
      const person = await peopleService.setActive(null, ws.id, userId(v.id), verb === 'reactivate', OPERATOR);
      return verb === 'deactivate' ? `Deactivated ${person.email ?? person.fullName}: their sessions ended and their keys stopped.` : `Reactivated ${person.email ?? person.fullName}.`;
    }
  }
  return undefined;
}
