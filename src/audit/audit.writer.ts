// The one writer of the audit log: `recordAudit(tx, …)` with the transaction of the change it
// records, so an entry exists exactly when its change is committed. Who acted comes from the
// principal (or the operator); from where, from the address the HTTP app put on the request's principal.
import type { Prisma } from '../generated/prisma/client.ts';
import type { Principal } from '../access/principal.ts';
import { newId } from '../ids.ts';
import { AUDIT_ACTIONS, type AuditAction, type AuditActorType, type AuditTargetType } from './audit.actions.ts';

export interface AuditActor {
  type: AuditActorType;
  /** A person's user id, a key's id; null for the operator. */
  id: string | null;
  /** A person's e-mail (or user name), a key's prefix, `cli` for the operator. */
  label: string;
  /** The client address of the request it acted in, when it acted through one. */
  address?: string | null;
}

/** `npm run cli` (src/admin/commands.ts): whoever runs the service's commands on its machine. */
export const OPERATOR: AuditActor = { type: 'operator', id: null, label: 'cli' };

export function actorOf(p: Principal): AuditActor {
  const address = p.address ?? null;
  return p.kind === 'apiKey'
    ? { type: 'api_key', id: String(p.apiKey.id), label: p.apiKey.prefix, address }
    : { type: 'person', id: String(p.user.id), label: p.email ?? p.user.userName, address };
}

export interface AuditInput {
  workspaceId: number;
  actor: AuditActor;
  action: AuditAction;
  target: { type: AuditTargetType; id: string | number };
  /** The record before the change (null: created) and after it (null: deleted); only the action's allow-listed fields that differ are kept. */
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  /** Defaults to the actor's (the request's client address). */
  address?: string | null;
}

export interface AuditChange {
  field: string;
  before: unknown;
  after: unknown;
}

const plain = (v: unknown): unknown => (v instanceof Date ? v.toISOString() : v === undefined ? null : v);

/** The changed fields that `action` records, in its allow-list's order. */
function changesOf(action: AuditAction, before: Record<string, unknown> | null | undefined, after: Record<string, unknown> | null | undefined): AuditChange[] {
  const out: AuditChange[] = [];
  for (const field of AUDIT_ACTIONS[action] as readonly string[]) {
    const b = plain(before?.[field]);
    const a = plain(after?.[field]);
    if (JSON.stringify(b) !== JSON.stringify(a)) out.push({ field, before: b, after: a });
  }
  return out;
}

export async function recordAudit(tx: Prisma.TransactionClient, input: AuditInput): Promise<void> {
  await tx.auditEntry.create({
    data: {
      id: newId('aud'),
      workspaceId: input.workspaceId,
      occurredAt: new Date(),
      action: input.action,
      actorType: input.actor.type,
      actorId: input.actor.id,
      actorLabel: input.actor.label.slice(0, 320),
      address: input.address !== undefined ? input.address : (input.actor.address ?? null),
      targetType: input.target.type,
      targetId: String(input.target.id),
      changes: changesOf(input.action, input.before, input.after) as unknown as Prisma.InputJsonValue,
    },
  });
}

/** Handed to a repository: it writes the entry in the change's transaction, once the change is made (with its result). */
export type AuditWrite<T = undefined> = (tx: Prisma.TransactionClient, result: T) => Promise<void>;
