// The commands of `npm run cli` (src/cli.ts): the settings page's API key actions without the UI,
// the operator's workspaces, and their boards, roles and people (workspace-admin-commands.ts).
// They run in the CLI's own process, or in the running service's when it holds the embedded
// database (src/admin/admin-channel.ts); either way they print the same text.
import { parseArgs } from 'node:util';
import { apiKeyService } from '../api-keys/api-key.service.ts';
import { workspaceRepository } from '../workspaces/workspace.repository.ts';
import { workspaceService } from '../workspaces/workspace.service.ts';
import { secretKeys } from '../webhooks/message/secret-box.ts';
import { secretRepository } from '../webhooks/subscriptions/secret.repository.ts';
import { AppError } from '../errors/errors.ts';
import { API_SCOPES } from '../access/principal.ts';
import { OPERATOR } from '../audit/audit.writer.ts';
import { ADMIN_USAGE, runAdminCommand } from './workspace-admin-commands.ts';
import type { Prisma } from '../generated/prisma/client.ts';

const usage = `usage:
  npm run cli -- keys create --name NAME --role ROLE --scopes SCOPE[,SCOPE…] [--expires YYYY-MM-DD] [--workspace URL]
  npm run cli -- keys revoke --id ID [--workspace URL]
  npm run cli -- keys list [--workspace URL]
  npm run cli -- workspaces create --name NAME --domain URL --admin-email EMAIL [--admin-name NAME]
  npm run cli -- workspaces list
  npm run cli -- secrets reencrypt
${ADMIN_USAGE}
scopes: ${API_SCOPES.join(', ')}
--workspace is needed when the database holds more than one workspace.`;

async function resolveWorkspace(domain: string | undefined) {
  if (domain) {
    const ws = await workspaceRepository.findByDomain(domain);
    if (!ws) throw new AppError('not_found', `No workspace with address ${domain}`);
    return ws;
  }
  const all = await workspaceRepository.list(2);
  if (all.length !== 1) throw new AppError('validation_failed', all.length ? 'Several workspaces: pass --workspace URL' : 'No workspace yet: run `npm start` once');
  return all[0];
}

/** Runs one command; returns what it prints. Throws AppError for a bad invocation. */
export async function runCli(argv: string[]): Promise<string> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      role: { type: 'string' },
      scopes: { type: 'string' },
      expires: { type: 'string' },
      workspace: { type: 'string' },
      id: { type: 'string' },
      domain: { type: 'string' },
      'admin-email': { type: 'string' },
      'admin-name': { type: 'string' },
      email: { type: 'string' },
      json: { type: 'string' },
      admin: { type: 'boolean' },
      'no-admin': { type: 'boolean' },
      permissions: { type: 'string' },
      boards: { type: 'string' },
    },
  });
  const [noun, verb] = positionals;
  if (noun === 'boards' || noun === 'roles' || noun === 'people') {
    const out = await runAdminCommand(noun, verb, values, await resolveWorkspace(values.workspace));
    if (out !== undefined) return out;
  }
  if (noun === 'keys' && verb === 'create') {
    if (!values.name || !values.role || !values.scopes) throw new AppError('validation_failed', usage);
    const ws = await resolveWorkspace(values.workspace);
    const role = /^\d+$/.test(values.role) ? Number(values.role) : values.role;
    const created = await apiKeyService.create(
      ws.id,
      {
        name: values.name,
        role,
        scopes: values.scopes.split(',').map((s) => s.trim()).filter(Boolean) as never,
        expiresAt: values.expires ? new Date(values.expires) : null,
      },
      null,
      OPERATOR,
    );
    return [
      `Created API key "${created.record.name}" (id ${created.record.id}, prefix ${created.record.prefix}) in ${ws.domain}.`,
      `Role: ${created.principal.role.name}; scopes: ${created.record.scopes.join(', ')}${created.record.expiresAt ? `; expires ${created.record.expiresAt.toISOString()}` : ''}`,
      'The key is shown this once; store it now:',
      created.value,
    ].join('\n');
  }
  if (noun === 'keys' && verb === 'revoke') {
    if (!values.id || !/^\d{1,9}$/.test(values.id)) throw new AppError('validation_failed', usage);
    const ws = await resolveWorkspace(values.workspace);
    await apiKeyService.revoke(ws.id, Number(values.id), OPERATOR);
    return `Revoked API key ${values.id}.`;
  }
  if (noun === 'keys' && verb === 'list') {
    const ws = await resolveWorkspace(values.workspace);
    return formatKeys(await listAllKeys(ws.id), ws.domain);
  }
  if (noun === 'workspaces' && verb === 'create') {
    if (!values.name || !values.domain || !values['admin-email']) throw new AppError('validation_failed', usage);
    const ws = await workspaceService.createForOperator({ name: values.name, domain: values.domain, adminEmail: values['admin-email'], adminName: values['admin-name'] });
    return [
      `Created workspace "${ws.workspace.name}" (id ${ws.workspace.id}) at ${ws.workspace.domain}: roles ${Object.values(ws.roles).map((r) => r.name).join(', ')}; board ${ws.boards.map((b) => b.name).join(', ')}.`,
      'Administrator sign-in, shown this once (the settings page, with this workspace address when the e-mail signs in elsewhere too):',
      `  ${ws.admin.email} / ${ws.adminPassword}`,
      `API keys: npm run cli -- keys create --workspace ${ws.workspace.domain} --name NAME --role Administrator --scopes SCOPE[,SCOPE…]`,
    ].join('\n');
  }
  if (noun === 'workspaces' && verb === 'list') return formatWorkspaces(await listAllWorkspaces());
  if (noun === 'secrets' && verb === 'reencrypt') return reencryptSecrets();
  throw new AppError('validation_failed', usage);
}

/** What a command printed, or the message of its failure: the CLI prints one or the other. */
export type Outcome = { ok: true; output: string } | { ok: false; error: string };

export async function runCommand(argv: string[]): Promise<Outcome> {
  try {
    return { ok: true, output: await runCli(argv) };
  } catch (err) {
    const error = err instanceof AppError ? [err.message, ...(err.errors ?? []).map((e) => `  ${e.path}: ${e.message}`)].join('\n') : String(err);
    return { ok: false, error };
  }
}

const PAGE = 100;

const withRole = { serviceUser: { include: { role: true } } } as const;
type ListedKey = Prisma.ApiKeyGetPayload<{ include: typeof withRole }>;

async function listAllKeys(workspaceId: number): Promise<ListedKey[]> {
  const keys: ListedKey[] = [];
  for (let after: string | null = null; ; ) {
    const page = await apiKeyService.list(workspaceId, { first: PAGE, after }, { include: withRole });
    keys.push(...page.edges.map((e) => e.node as ListedKey));
    if (!page.pageInfo.hasNextPage) return keys;
    after = page.pageInfo.endCursor ?? null;
  }
}

const when = (d: Date | null) => (d ? d.toISOString().slice(0, 16).replace('T', ' ') : '-');

/** One line per key, newest first; never the secret (only its SHA-256 is stored anyway). */
function formatKeys(keys: ListedKey[], domain: string): string {
  if (!keys.length) return `No API keys in ${domain}.`;
  return table([
    ['ID', 'PREFIX', 'NAME', 'ROLE', 'SCOPES', 'EXPIRES', 'LAST USED', 'REVOKED'],
    ...keys.map((k) => [String(k.id), k.prefix, k.name, k.serviceUser.role.name, k.scopes.join(','), when(k.expiresAt), when(k.lastUsedAt), when(k.revokedAt)]),
  ]);
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

async function listAllWorkspaces() {
  const all = [];
  for (let after = 0; ; ) {
    const page = await workspaceRepository.listAfter(after, PAGE);
    all.push(...page);
    if (page.length < PAGE) return all;
    after = page[page.length - 1].id;
  }
}

function formatWorkspaces(workspaces: Awaited<ReturnType<typeof listAllWorkspaces>>): string {
  if (!workspaces.length) return 'No workspaces yet: `npm start` creates the demo one, `workspaces create` others.';
  return table([['ID', 'ADDRESS', 'NAME', 'CREATED'], ...workspaces.map((w) => [String(w.id), w.domain, w.name, when(w.createdAt)])]);
}

/**
 * Webhook secrets under a new key. With WEBHOOK_SECRET_KEYS, the new key is the one listed first
 * (every process restarted with it first beforehand); with the key file, a new key is made here.
 * The other keys are retired before any row is read (secret.repository.ts): nothing can be sealed
 * under them afterwards, so dropping them once every row is read loses nothing.
 */
async function reencryptSecrets(): Promise<string> {
  if (!secretKeys.fromConfig) secretKeys.addKey();
  const { reencrypted, keyId, retired, stillUsed } = await secretRepository.reencryptAll();
  const lines = [`Re-encrypted ${reencrypted} webhook subscription${reencrypted === 1 ? '' : 's'} under key ${keyId}.`];
  if (retired.length) lines.push(`Retired ${retired.join(', ')}: no process can seal a secret under ${retired.length === 1 ? 'it' : 'them'} any more.`);
  if (stillUsed.length) lines.push(`Still in use, by keys this process does not hold: ${stillUsed.join(', ')}. Nothing was dropped.`);
  else if (secretKeys.fromConfig) lines.push(`No row uses another key: WEBHOOK_SECRET_KEYS may now list ${keyId} alone (restart every process with it).`);
  else {
    secretKeys.keepOnly(new Set([keyId]));
    lines.push('The earlier keys are removed from the key file.');
  }
  return lines.join('\n');
}
