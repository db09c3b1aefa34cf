// The data of `npm run bench:guard`'s API cases, written by one version's own code: forked with
// that version's tree as its working directory and as its argument, it imports the tree's
// database, services and migrations (as bench/webhook-side.ts does), so each version runs on a
// database its own migrations made. One workspace, a key with every scope whose allowance cannot
// throttle the run, and 200 tickets (a page is 50). DATABASE_URL (PostgreSQL) or DATA_DIR (the
// embedded default) say where. Sends the fixture (bench/servers/listen.ts) over IPC.
import crypto from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchFixture } from './servers/listen.ts';

const tree = process.argv[2]!;
const fromTree = (file: string) => pathToFileURL(path.join(tree, file)).href;
const TICKETS = 200;
/** Far above what the guard's connections send in a minute. */
const UNTHROTTLED_PER_MINUTE = 100_000_000;

const { db, migrate, prisma } = (await import(fromTree('src/db/db.ts'))) as typeof import('../src/db/db.ts');
const { workspaceService } = (await import(fromTree('src/workspaces/workspace.service.ts'))) as typeof import('../src/workspaces/workspace.service.ts');
const { apiKeyService } = (await import(fromTree('src/api-keys/api-key.service.ts'))) as typeof import('../src/api-keys/api-key.service.ts');
const { ticketService } = (await import(fromTree('src/tickets/ticket.service.ts'))) as typeof import('../src/tickets/ticket.service.ts');
const { API_SCOPES } = (await import(fromTree('src/access/principal.ts'))) as typeof import('../src/access/principal.ts');

await migrate();
const suffix = crypto.randomBytes(4).toString('hex');
const ws = await workspaceService.create({
  name: `Guard ${suffix}`,
  domain: `https://guard-${suffix}.example.test`,
  adminEmail: `admin-${suffix}@example.test`,
  adminName: 'Guard Admin',
  adminPassword: crypto.randomBytes(12).toString('base64url'),
});
const key = await apiKeyService.create(ws.workspace.id, { name: 'Guard key', role: ws.roles.admin.id, scopes: [...API_SCOPES] }, ws.admin.id);
// The servers read the allowance from the key's row when they first resolve it.
await prisma.apiKey.update({ where: { id: key.record.id }, data: { requestsPerMinute: UNTHROTTLED_PER_MINUTE } });
const board = ws.boards[0]!;
const product = board.fields.find((f) => f.name === 'Product')!;
for (let n = 0; n < TICKETS; n++) {
  await ticketService.create(key.principal, {
    boardId: board.id,
    subject: `Seeded ticket ${n}`,
    description: 'Created by the guard',
    requesterEmail: `customer${n}@example.test`,
    fields: [{ fieldId: product.id, value: 'Web' }],
  });
}
const fixture: BenchFixture = { apiKey: key.value, apiKeyId: key.record.id, boardId: board.id, productFieldId: product.id };
await db.close();
await new Promise<void>((resolve, reject) => process.send!(fixture, (err: Error | null) => (err ? reject(err) : resolve())));
process.disconnect();
