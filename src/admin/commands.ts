// Headless administration: `npm run cli -- keys create --name NAME --role ROLE --scopes a,b [--expires DATE] [--workspace URL]`
// does the settings page's "New key" action and prints the key once.
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { apiKeyService } from './api-keys/api-key.service.ts';
import { workspaceRepository } from './workspaces/workspace.repository.ts';
import { AppError } from './errors/errors.ts';
import { API_SCOPES } from './auth/principal.ts';

const usage = `usage:
  npm run cli -- keys create --name NAME --role ROLE --scopes SCOPE[,SCOPE…] [--expires YYYY-MM-DD] [--workspace URL]
  npm run cli -- keys revoke --id ID [--workspace URL]
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
    },
  });
  const [noun, verb] = positionals;
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
    );
    return [
      `Created API key "${created.record.name}" (id ${created.record.id}, prefix ${created.record.prefix}) in ${ws.domain}.`,
      `Role: ${created.principal.role.name}; scopes: ${created.record.scopes.join(', ')}${created.record.expiresAt ? `; expires ${created.record.expiresAt.toISOString()}` : ''}`,
      'The key is shown this once; store it now:',
      created.value,
    ].join('\n');
  }
  if (noun === 'keys' && verb === 'revoke') {
    if (!values.id) throw new AppError('validation_failed', usage);
    const ws = await resolveWorkspace(values.workspace);
    await apiKeyService.revoke(ws.id, Number(values.id));
    return `Revoked API key ${values.id}.`;
  }
  throw new AppError('validation_failed', usage);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { migrate, db } = await import('./db/db.ts');
  try {
    await migrate();
    console.log(await runCli(process.argv.slice(2)));
  } catch (err) {
    const detail = err instanceof AppError ? [err.message, ...(err.errors ?? []).map((e) => `  ${e.path}: ${e.message}`)].join('\n') : String(err);
    console.error(detail);
    process.exitCode = 1;
  } finally {
    await db.close();
  }
}
