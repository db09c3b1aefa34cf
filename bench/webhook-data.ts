// The database side of `npm run bench:webhooks`, imported by bench/webhooks.ts once it has set
// DATABASE_URL (src/config.ts reads the environment at import). A workspace with an API key,
// subscriptions made through the webhook service (URL policy included), and events written the
// two ways the product writes them.
import crypto from 'node:crypto';
import { db, migrate, prisma } from '../src/db/db.ts';
import { workspaceService } from '../src/workspaces/workspace.service.ts';
import { apiKeyService } from '../src/api-keys/api-key.service.ts';
import { ticketService } from '../src/tickets/ticket.service.ts';
import { webhookService } from '../src/webhooks/subscriptions/webhook.service.ts';
import { writeEvent } from '../src/events/event.outbox.ts';
import type { JsonValue } from '../src/events/event.envelope.ts';
import { API_SCOPES } from '../src/access/principal.ts';

export async function setUpWorkspace(receiverUrls: string[]) {
  await migrate();
  const suffix = crypto.randomBytes(4).toString('hex');
  const ws = await workspaceService.create({
    name: `Webhook benchmark ${suffix}`,
    domain: `https://bench-${suffix}.example.test`,
    adminEmail: `admin-${suffix}@example.test`,
    adminName: 'Benchmark Admin',
    adminPassword: crypto.randomBytes(12).toString('base64url'),
  });
  const key = await apiKeyService.create(ws.workspace.id, { name: 'Benchmark key', role: ws.roles.admin.id, scopes: [...API_SCOPES] }, ws.admin.id);
  const subscriptionIds: string[] = [];
  for (const url of receiverUrls) {
    const { subscription } = await webhookService.create(key.principal, { url, events: ['ticket.created'], description: 'benchmark receiver' });
    subscriptionIds.push(subscription.id);
  }
  const board = ws.boards[0];
  const product = board.fields.find((f) => f.name === 'Product')!;
  const ticketInput = (n: number) => ({
    boardId: board.id,
    subject: `Benchmark ticket ${n}`,
    description: 'Created by the webhook benchmark',
    requesterEmail: `customer${n}@example.test`,
    fields: [{ fieldId: product.id, value: 'Web' }],
  });
  // A real ticket's representation: the `data` of the outbox events written in bulk below.
  const template = (await ticketService.create(key.principal, ticketInput(0))) as unknown as JsonValue;
  const actor = { id: key.principal.user.id, name: key.principal.user.fullName };

  return {
    workspaceId: ws.workspace.id,
    subscriptionIds,
    /** The ticket.created event of the template ticket: done before the measurement. */
    async lastSeq(): Promise<bigint> {
      const row = await prisma.event.findFirst({ where: { workspaceId: ws.workspace.id }, orderBy: { seq: 'desc' }, select: { seq: true } });
      return BigInt(row?.seq ?? 0);
    },
    /** `count` ticket.created events through writeEvent, `perTransaction` to a transaction, `concurrency` transactions at once. Returns their ids. */
    async writeEvents(count: number, perTransaction: number, concurrency: number): Promise<string[]> {
      const ids: string[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < count) {
            const n = Math.min(perTransaction, count - next);
            next += n;
            const written = await prisma.$transaction(async (tx) => {
              const out: string[] = [];
              for (let i = 0; i < n; i++) {
                out.push((await writeEvent(tx, { workspace: ws.workspace, type: 'ticket.created', actor, boardId: board.id, data: template })).id);
              }
              return out;
              // Prisma's 5 s default fails a batch of 50 on a machine shared with other work.
            }, { timeout: 60_000 });
            ids.push(...written);
          }
        }),
      );
      return ids;
    },
    /** One ticket through the ticket service (its event in the same statement), as POST /tickets does. */
    createTicket: (n: number) => ticketService.create(key.principal, ticketInput(n)),
    /** The events after `afterSeq`, i.e. those a phase wrote. */
    async eventIdsAfter(afterSeq: bigint): Promise<string[]> {
      const rows = await prisma.event.findMany({ where: { workspaceId: ws.workspace.id, seq: { gt: afterSeq } }, select: { id: true } });
      return rows.map((r) => r.id);
    },
    /** Deliveries and attempts of the events after `afterSeq`, by status. */
    async deliveryCounts(afterSeq: bigint) {
      const where = { event: { workspaceId: ws.workspace.id, seq: { gt: afterSeq } } };
      const byStatus = await prisma.delivery.groupBy({ by: ['status'], where, _count: { _all: true } });
      const attempts = await prisma.deliveryAttempt.count({ where: { delivery: where } });
      const unrelayed = await prisma.event.count({ where: { workspaceId: ws.workspace.id, seq: { gt: afterSeq }, relayedAt: null } });
      return { byStatus: Object.fromEntries(byStatus.map((r) => [r.status, r._count._all])) as Record<string, number>, attempts, unrelayed };
    },
    close: () => db.close(),
  };
}

export type BenchData = Awaited<ReturnType<typeof setUpWorkspace>>;
