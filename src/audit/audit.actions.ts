// The administrative actions the audit log records, and for each the only fields whose before and
// after it keeps: an allow-list, so a field added to a record later (a secret, a token) is never
// recorded by accident. docs/integrators/audit-log.md lists them. No imports: the UI's filter and
// the OpenAPI enum read the same list.

const SUBSCRIPTION_FIELDS = ['url', 'events', 'boardIds', 'fields', 'description', 'maxInFlight', 'ratePerSecond', 'ordering', 'payload', 'retrySchedule'] as const;
const CONDITION = ['condition'] as const;
const BOARD_FIELDS = ['name', 'description', 'priorities', 'fields', 'states'] as const;
const ROLE_FIELDS = ['name', 'isAdmin', 'permissions', 'allBoards', 'boardIds'] as const;

export const AUDIT_ACTIONS = {
  'api_key.created': ['name', 'scopes', 'roleId', 'expiresAt'],
  'api_key.revoked': ['revokedAt'],
  'webhook_subscription.created': SUBSCRIPTION_FIELDS,
  'webhook_subscription.updated': SUBSCRIPTION_FIELDS,
  'webhook_subscription.deleted': ['url'],
  /** The secret itself never: only that it changed, and when. */
  'webhook_subscription.secret_rotated': ['secretRotatedAt'],
  'webhook_subscription.paused': CONDITION,
  'webhook_subscription.resumed': CONDITION,
  'webhook_subscription.disabled': CONDITION,
  'webhook_subscription.enabled': CONDITION,
  'webhook_subscription.test_sent': ['eventId'],
  /** Recorded once the recovery's workflow started (it changes no row: there is no transaction to share). */
  'webhook_subscription.recovery_started': ['since', 'until'],
  /** Recorded when the re-send is accepted, before its attempt runs (the attempt is in the delivery log). */
  'webhook_subscription.delivery_resend_requested': ['deliveryId'],
  'session.signed_in': [],
  'session.sign_in_failed': [],
  'session.signed_out': [],
  'workspace.created': ['name', 'domain'],
  'board.created': BOARD_FIELDS,
  'board.updated': ['name', 'description'],
  'board.archived': ['archivedAt'],
  'board.unarchived': ['archivedAt'],
  'role.created': ROLE_FIELDS,
  'role.updated': ROLE_FIELDS,
  /** The token never: only who is invited, with which role, until when. */
  'user.invited': ['email', 'roleId', 'expiresAt'],
  'user.invitation_revoked': ['email'],
  /** By the new person, as they accept: the invitation's id is in `changes`. */
  'user.invitation_accepted': ['invitationId', 'email', 'roleId', 'fullName'],
  'user.role_changed': ['roleId'],
  'user.deactivated': ['deactivatedAt'],
  'user.reactivated': ['deactivatedAt'],
} as const satisfies Record<string, readonly string[]>;

export type AuditAction = keyof typeof AUDIT_ACTIONS;
export const AUDIT_ACTION_NAMES = Object.keys(AUDIT_ACTIONS) as AuditAction[];

/** person: a signed-in human; api_key: a key acting as its service account; operator: `npm run cli`. */
export const AUDIT_ACTOR_TYPES = ['person', 'api_key', 'operator'] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

/** Sessions are recorded by their account (`user`): a session's id is derived from its cookie. */
export const AUDIT_TARGET_TYPES = ['api_key', 'webhook_subscription', 'workspace', 'user', 'board', 'role', 'invitation'] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];
