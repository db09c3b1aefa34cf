// The chaos test's side of the cluster's database, imported once DATABASE_URL points at it
// (src/config.ts reads the environment at import): a fresh workspace with an API key before the
// run, and what the run left there after it (events, tickets per Idempotency-Key).
import crypto from 'node:crypto';
import { db, prisma } from '../../src/db/db.ts';
import { workspaceService } from '../../src/workspaces/workspace.service.ts';
import { apiKeyService } from '../../src/api-keys/api-key.service.ts';
import { API_SCOPES } from '../../src/access/principal.ts';

export async function createChaosWorkspace() {
  // The first query compiles Prisma's query engine (WASM): on a busy machine that outlasts a
  // transaction's 2 s wait for its connection, so it runs on its own first.
  await prisma.$queryRaw`SELECT 1`;
  const suffix = crypto.randomBytes(4).toString('hex');
  const ws = await workspaceService.create({
    name: `Chaos ${suffix}`,
    domain: `https://chaos-${suffix}.example.test`,
    adminEmail: `admin-${suffix}@example.test`,
    adminName: 'Chaos Admin',
    adminPassword: crypto.randomBytes(12).toString('base64url'),
  });
  const key = await apiKeyService.create(ws.workspace.id, { name: 'Chaos key', role: ws.roles.admin.id, scopes: [...API_SCOPES] }, ws.admin.id);
  const board = ws.boards[0];
  const product = board.fields.find((f) => f.name === 'Product')!;
  return { workspaceId: ws.workspace.id, apiKey: key.value, boardId: board.id, productFieldId: product.id };
}

/** The workspace's events (id and type) in event order, (txid, seq) as the feed's: the webhook-ids the receivers should see. */
export async function workspaceEvents(workspaceId: number) {
  return prisma.event.findMany({ where: { workspaceId }, select: { id: true, type: true }, orderBy: [{ txid: 'asc' }, { seq: 'asc' }] });
}

/** Events not yet handed to Temporal, and deliveries by status: the drain's progress. */
export async function drainState(workspaceId: number) {
  const unrelayed = await prisma.event.count({ where: { workspaceId, relayedAt: null } });
  const byStatus = await prisma.delivery.groupBy({ by: ['status'], where: { event: { workspaceId } }, _count: { _all: true } });
  return { unrelayed, byStatus: Object.fromEntries(byStatus.map((r) => [r.status, r._count._all])) as Record<string, number> };
}

/** Subjects (each carries its request's Idempotency-Key) held by more than one ticket, and the ticket count. */
export async function ticketsPerKey(workspaceId: number) {
  const groups = await prisma.ticket.groupBy({ by: ['subject'], where: { workspaceId }, _count: { _all: true } });
  return {
    tickets: groups.reduce((n, g) => n + g._count._all, 0),
    subjects: new Set(groups.map((g) => g.subject)),
    twice: groups.filter((g) => g._count._all > 1).map((g) => g.subject),
  };
}

export const closeDatabase = () => db.close();
