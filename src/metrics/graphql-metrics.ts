// Counts GraphQL operations at /graphql by name and outcome: `success` (executed, no errors),
// `error` (executed, with errors), `rejected` (never executed: parse, validation or a limit).
import { getOperationAST, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { graphqlOperations } from './metrics.ts';

/**
 * The operations of the settings UI (web/src/api/operations.ts; test/metrics/operation-labels.test.ts
 * checks that this list names every one of them).
 */
export const UI_OPERATION_NAMES = [
  'ApiKeys', 'Boards', 'CreateApiKey', 'CreateWebhookSubscription', 'DeleteWebhookSubscription', 'DisableWebhookSubscription',
  'EnableWebhookSubscription', 'MarkAllNotificationsRead', 'MarkNotificationRead', 'Notifications', 'PauseWebhookSubscription',
  'RecoverWebhookDeliveries', 'ResendWebhookDelivery', 'ResumeWebhookSubscription', 'RevokeApiKey', 'Roles', 'RotateWebhookSecret',
  'SendWebhookTest', 'SignIn', 'SignOut', 'UnreadNotificationCount', 'UpdateWebhookSubscription', 'Viewer', 'WebhookDeliveries',
  'WebhookDeliveryStats', 'WebhookFailedSince', 'WebhookLimits', 'WebhookSubscription', 'WebhookSubscriptions',
  'AuditLog', 'AdminBoards', 'CreateBoard', 'UpdateBoard', 'ArchiveBoard', 'UnarchiveBoard', 'AdminRoles', 'CreateRole', 'UpdateRole',
  'People', 'ChangeUserRole', 'DeactivateUser', 'ReactivateUser', 'Invitations', 'InviteUser', 'RevokeInvitation', 'InvitationPreview',
  'AcceptInvitation',
] as const;

/** The name an operation document declares (`query listTickets(…)`). */
const declaredName = (operation: string) => /^\s*(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/.exec(operation)?.[1];

/** Metric labels come from this bounded set alone: the route table's operations (the assembly hands them in) and the settings UI's. */
export const knownOperationNames = (routeOperations: string[]): ReadonlySet<string> =>
  new Set([...routeOperations.flatMap((op) => declaredName(op) ?? []), ...UI_OPERATION_NAMES]);

/** Operation names are the caller's text: any name outside the known set counts as `other`. */
export function graphqlMetrics(known: ReadonlySet<string>): Plugin {
  const label = (name: string | null | undefined) => {
    if (!name) return 'anonymous';
    return known.has(name) ? name : 'other';
  };
  const executed = new WeakMap<Request, string | undefined>();
  const asked = new WeakMap<Request, string | null | undefined>();

  return {
    onParams({ request, params }) {
      asked.set(request, params.operationName);
    },
    onExecute({ args }) {
      const request = (args.contextValue as { request?: Request }).request;
      if (request) executed.set(request, getOperationAST(args.document as DocumentNode, args.operationName as string | undefined)?.name?.value);
    },
    onResultProcess({ request, result }) {
      const errors = !Array.isArray(result) && 'errors' in result && (result.errors?.length ?? 0) > 0;
      if (executed.has(request)) graphqlOperations.inc({ operation: label(executed.get(request)), outcome: errors ? 'error' : 'success' });
      else graphqlOperations.inc({ operation: label(asked.get(request)), outcome: 'rejected' });
    },
  };
}
