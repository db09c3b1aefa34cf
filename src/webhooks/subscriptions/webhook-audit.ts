// The audit log's entries of subscription changes (src/audit): who changed which subscription, and
// its allow-listed fields before and after; each written in the change's transaction.
import type { Principal } from '../../access/principal.ts';
import type { AuditAction } from '../../audit/audit.actions.ts';
import { actorOf, recordAudit, type AuditWrite } from '../../audit/audit.writer.ts';
import { auditRepository } from '../../audit/audit.repository.ts';

type Fields = Record<string, unknown> | object | null;

export const subscriptionAudit =
  (p: Principal, action: AuditAction, id: string, before: Fields, after: Fields): AuditWrite<unknown> =>
  (tx) =>
    recordAudit(tx, {
      workspaceId: p.workspace.id,
      actor: actorOf(p),
      action,
      target: { type: 'webhook_subscription', id },
      before: before as Record<string, unknown> | null,
      after: after as Record<string, unknown> | null,
    });

/** A change of condition (pause, resume, disable, enable), from the condition it was in. */
export const conditionAudit = (p: Principal, action: AuditAction, s: { id: string; condition: string }, to: string) =>
  subscriptionAudit(p, action, s.id, { condition: s.condition }, { condition: to });

/** An action on a subscription that changes no row of ours (a workflow started): an entry of its own. */
export const recordSubscriptionAction = (p: Principal, action: AuditAction, id: string, after: Record<string, unknown>) =>
  auditRepository.record({ workspaceId: p.workspace.id, actor: actorOf(p), action, target: { type: 'webhook_subscription', id }, before: null, after });
