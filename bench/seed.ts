// Seeds a benchmark's data: one workspace with the demo boards, an API key with every scope whose
// rate limit cannot throttle the run, and TICKETS tickets. Run as a child process with
// DATABASE_URL (PostgreSQL) or DATA_DIR (the embedded default) set; sends the fixture
// (bench/servers/listen.ts) to the parent over IPC.
//
//   seed.ts [TREE [TICKETS]]
//
// TREE: the checkout whose code writes the data (its database, services and migrations, imported
// from there, as bench/webhook-side.ts does): `bench:guard` seeds each version with its own code,
// so each runs on a database its own migrations made. Default: this checkout, 500 tickets.
import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchFixture } from './servers/listen.ts';

const tree = process.argv[2] ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TICKETS = Number(process.argv[3] ?? 500);
const SEED_CONCURRENCY = 8;
/** Far above what a benchmark's connections can send in a minute on this machine. */
const UNTHROTTLED_PER_MINUTE = 100_000_000;

const fromTree = (file: string) => pathToFileURL(path.join(tree, file)).href;
const { db, migrate, prisma } = (await import(fromTree('src/db/db.ts'))) as typeof import('../src/db/db.ts');
const { workspaceService } = (await import(fromTree('src/workspaces/workspace.service.ts'))) as typeof import('../src/workspaces/workspace.service.ts');
const { apiKeyService } = (await import(fromTree('src/api-keys/api-key.service.ts'))) as typeof import('../src/api-keys/api-key.service.ts');
const { ticketService } = (await import(fromTree('src/tickets/ticket.service.ts'))) as typeof import('../src/tickets/ticket.service.ts');
const { API_SCOPES } = (await import(fromTree('src/access/principal.ts'))) as typeof import('../src/access/principal.ts');

await migrate();
const suffix = crypto.randomBytes(4).toString('hex');
const ws = await workspaceService.create({
  name: `Benchmark ${suffix}`,
  domain: `https://bench-${suffix}.example.test`,
  adminEmail: `admin-${suffix}@example.test`,
  adminName: 'Benchmark Admin',
  adminPassword: crypto.randomBytes(12).toString('base64url'),
});
const key = await apiKeyService.create(ws.workspace.id, { name: 'Benchmark key', role: ws.roles.admin.id, scopes: [...API_SCOPES] }, ws.admin.id);

// The servers read the limit from the key's row when they first resolve it.
await prisma.apiKey.update({ where: { id: key.record.id }, data: { requestsPerMinute: UNTHROTTLED_PER_MINUTE } });

const board = ws.boards[0];
const product = board.fields.find((f) => f.name === 'Product')!;
let next = 0;
await Promise.all(
  Array.from({ length: SEED_CONCURRENCY }, async () => {
    while (next < TICKETS) {
      const n = next++;
      await ticketService.create(key.principal, {
        boardId: board.id,
        subject: `Seeded ticket ${n}`,
        description: 'Created by the benchmark seed',
        requesterEmail: `customer${n}@example.test`,
        fields: [{ fieldId: product.id, value: 'Web' }],
      });
    }
  }),
);

const fixture: BenchFixture = { apiKey: key.value, apiKeyId: key.record.id, boardId: board.id, productFieldId: product.id };
await db.close();
await new Promise<void>((resolve, reject) => process.send!(fixture, (err: Error | null) => (err ? reject(err) : resolve())));
process.disconnect();
