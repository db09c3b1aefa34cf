// The data of `npm run bench:memory`, seeded by a child process before the parts start (the
// embedded PGlite admits one process at a time): a workspace, an unthrottled API key with every
// scope, a webhook subscription on the receiver (argv[2]), small tickets, tickets with 60 KB
// descriptions and 90 KB knowledge base articles. Sends the fixture to the parent over IPC.
import crypto from 'node:crypto';
import { db, migrate, prisma } from '../src/db/db.ts';
import { workspaceService } from '../src/workspaces/workspace.service.ts';
import { apiKeyService } from '../src/api-keys/api-key.service.ts';
import { ticketService } from '../src/tickets/ticket.service.ts';
import { webhookService } from '../src/webhooks/subscriptions/webhook.service.ts';
import { API_SCOPES } from '../src/access/principal.ts';

export interface MemoryFixture {
  apiKey: string;
  boardId: string;
  productFieldId: string;
}

const SMALL_TICKETS = 200;
const LARGE_TICKETS = 120;
const ARTICLES = 120;
const LARGE_DESCRIPTION = 'x'.repeat(60_000);
const ARTICLE_BODY = 'y'.repeat(90_000);

await migrate();
const suffix = crypto.randomBytes(4).toString('hex');
const ws = await workspaceService.create({
  name: `Memory benchmark ${suffix}`,
  domain: `https://bench-${suffix}.example.test`,
  adminEmail: `admin-${suffix}@example.test`,
  adminName: 'Benchmark Admin',
  adminPassword: crypto.randomBytes(12).toString('base64url'),
});
const key = await apiKeyService.create(ws.workspace.id, { name: 'Benchmark key', role: ws.roles.admin.id, scopes: [...API_SCOPES] }, ws.admin.id);
await prisma.apiKey.update({ where: { id: key.record.id }, data: { requestsPerMinute: 100_000_000 } });
await webhookService.create(key.principal, { url: process.argv[2], events: ['ticket.created'], description: 'memory benchmark receiver' });

const board = ws.boards[0];
const product = board.fields.find((f) => f.name === 'Product')!;
for (let n = 0; n < SMALL_TICKETS + LARGE_TICKETS; n++) {
  await ticketService.create(key.principal, {
    boardId: board.id,
    subject: `Seeded ticket ${n}`,
    description: n < SMALL_TICKETS ? 'Created by the memory benchmark' : LARGE_DESCRIPTION,
    requesterEmail: `customer${n}@example.test`,
    fields: [{ fieldId: product.id, value: 'Web' }],
  });
}
await prisma.knowledgeBaseArticle.createMany({
  data: Array.from({ length: ARTICLES }, (_, i) => ({
    workspaceId: ws.workspace.id,
    authorId: ws.admin.id,
    updatedById: ws.admin.id,
    title: `Large article ${i}`,
    body: ARTICLE_BODY,
    status: 'published' as const,
  })),
});

const fixture: MemoryFixture = { apiKey: key.value, boardId: board.id, productFieldId: product.id };
await db.close();
await new Promise<void>((resolve, reject) => process.send!(fixture, (err: Error | null) => (err ? reject(err) : resolve())));
process.disconnect();
