// Seeds the benchmark's data (run as a child process with DATABASE_URL, or DATA_DIR for the embedded
// default): one workspace with the demo boards, an API key with every scope whose rate limit
// cannot throttle the run, and ~500 tickets. Sends the fixture to the parent over IPC.
import crypto from 'node:crypto';
import { db, migrate, prisma } from '../src/db/db.ts';
import { workspaceService } from '../src/workspaces/workspace.service.ts';
import { apiKeyService } from '../src/api-keys/api-key.service.ts';
import { ticketService } from '../src/tickets/ticket.service.ts';
import { API_SCOPES } from '../src/access/principal.ts';
import type { BenchFixture } from './servers/listen.ts';

const TICKETS = 500;
const SEED_CONCURRENCY = 8;
/** Far above what 32 connections can send in a minute on this machine. */
const UNTHROTTLED_PER_MINUTE = 100_000_000;

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
