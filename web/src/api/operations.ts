// The GraphQL operations of the settings UI. Their result and variable types are generated from
// schema.graphql (web/src/gql/, by `npm run generate`); the types below are read off them.
import { graphql } from '../gql/index.ts';
import type { DeliveryStatus } from '../gql/graphql.ts';
import type { ResultOf } from './client.ts';

graphql(`
  fragment ViewerFields on Viewer {
    id
    fullName
    email
    isAdmin
    csrfToken
    role { id name }
    workspace { name domain }
  }
`);
export const VIEWER = graphql(`query Viewer { viewer { ...ViewerFields } }`);
export const SIGN_IN = graphql(`
  mutation SignIn($email: String!, $password: String!, $workspace: String) {
    signIn(email: $email, password: $password, workspace: $workspace) { ...ViewerFields }
  }
`);
export const SIGN_OUT = graphql(`mutation SignOut { signOut }`);
export type Viewer = ResultOf<typeof SIGN_IN>['signIn'];

export const ROLES = graphql(`query Roles { roles { id name isAdmin permissions } }`);
export type Role = ResultOf<typeof ROLES>['roles'][number];

graphql(`
  fragment ApiKeyFields on ApiKey { id name prefix scopes role { id name } expiresAt lastUsedAt revokedAt createdAt }
`);
export const API_KEYS = graphql(`
  query ApiKeys($first: Int, $after: String) {
    apiKeys(first: $first, after: $after) { edges { node { ...ApiKeyFields } } pageInfo { hasNextPage endCursor } }
  }
`);
export type ApiKey = ResultOf<typeof API_KEYS>['apiKeys']['edges'][number]['node'];
export const CREATE_API_KEY = graphql(`
  mutation CreateApiKey($input: CreateApiKeyInput!) { createApiKey(input: $input) { value apiKey { ...ApiKeyFields } } }
`);
export const REVOKE_API_KEY = graphql(`mutation RevokeApiKey($id: Int!) { revokeApiKey(id: $id) }`);

/** The scopes a key can have (docs/integrators/api-conventions.md, "Scopes and roles"), with what each allows, for the New key form. */
export const API_SCOPES = [
  { id: 'tickets:read', label: 'Read tickets' },
  { id: 'tickets:write', label: 'Create and change tickets' },
  { id: 'boards:read', label: 'Read boards' },
  { id: 'boards:write', label: 'Make and archive boards (admin role only)' },
  { id: 'users:read', label: 'Read users' },
  { id: 'users:write', label: 'Invite, change and deactivate people (admin role only)' },
  { id: 'kb:read', label: 'Read knowledge base articles' },
  { id: 'kb:write', label: 'Write knowledge base articles' },
  { id: 'webhooks:manage', label: 'Manage webhooks' },
  { id: 'audit:read', label: 'Read the audit log (admin role only)' },
] as const;

export const NOTIFICATIONS = graphql(`
  query Notifications($first: Int, $after: String, $unreadOnly: Boolean, $topic: NotificationTopic) {
    notifications(first: $first, after: $after, unreadOnly: $unreadOnly, topic: $topic) {
      edges { node { id kind title body link read createdAt } } pageInfo { hasNextPage endCursor }
    }
  }
`);
export type Notification = ResultOf<typeof NOTIFICATIONS>['notifications']['edges'][number]['node'];
export const MARK_NOTIFICATION_READ = graphql(`mutation MarkNotificationRead($id: Int!) { markNotificationRead(id: $id) { id read } }`);
/** The server counts up to this many (notification.repository.ts UNREAD_COUNT_CAP). */
export const UNREAD_COUNT_CAP = 1000;
/** The unread counts of the navigation and the page's tabs, in one request. */
export const UNREAD_NOTIFICATION_COUNT = graphql(`
  query UnreadNotificationCount {
    all: unreadNotificationCount webhooks: unreadNotificationCount(topic: webhooks) tickets: unreadNotificationCount(topic: tickets)
  }
`);
export const MARK_ALL_NOTIFICATIONS_READ = graphql(`
  mutation MarkAllNotificationsRead($topic: NotificationTopic, $throughId: Int) {
    markAllNotificationsRead(topic: $topic, throughId: $throughId)
  }
`);

graphql(`
  fragment HealthAttemptFields on WebhookHealthAttempt { status httpStatus error attemptedAt eventType }
`);
graphql(`
  fragment SubscriptionFields on WebhookSubscription {
    id url events boards fields description condition conditionReason consecutiveFailures maxInFlight ratePerSecond
    destination {
      __typename
      ... on HttpsDestination { type url }
      ... on SqsDestination { type queueUrl region fifo }
      ... on EventBridgeDestination { type eventBusName region endpoint sourcePrefix }
      ... on KafkaDestination { type brokers topic tls sasl }
      ... on RabbitMqDestination { type url exchange routingKeyPrefix }
      ... on NatsDestination { type servers subject tls }
    }
    effectiveInFlight retryAfterUntil ordering
    payload
    backlog { pending inFlight oldestWaitingSince waitingFor }
    health { attempts24h successRate24h lastAttempt { ...HealthAttemptFields } lastFailure { ...HealthAttemptFields } }
    createdAt updatedAt
    retrySchedule { delaysSeconds maxAttempts spanSeconds custom }
  }
`);
export const WEBHOOK_SUBSCRIPTIONS = graphql(`
  query WebhookSubscriptions($first: Int, $after: String) {
    webhookSubscriptions(first: $first, after: $after) { edges { node { ...SubscriptionFields } } pageInfo { hasNextPage endCursor } }
  }
`);
export type WebhookSubscription = ResultOf<typeof WEBHOOK_SUBSCRIPTIONS>['webhookSubscriptions']['edges'][number]['node'];
export type HealthAttempt = NonNullable<WebhookSubscription['health']['lastAttempt']>;
export type WebhookBacklogWait = WebhookSubscription['backlog']['waitingFor'];
/** Where a subscription's deliveries go (never its credentials). */
export type WebhookDestination = WebhookSubscription['destination'];
export const WEBHOOK_SUBSCRIPTION = graphql(`
  query WebhookSubscription($id: String!) { webhookSubscription(id: $id) { ...SubscriptionFields secretRotatedAt } }
`);
/** One subscription as its page reads it (with the time of the last rotation). */
export type WebhookSubscriptionDetail = ResultOf<typeof WEBHOOK_SUBSCRIPTION>['webhookSubscription'];

/** What a subscription can listen to (webhook.test comes from the Test action alone). */
export const WEBHOOK_EVENTS = [
  { id: 'ticket.created', label: 'A ticket is created' },
  { id: 'ticket.updated', label: 'A ticket’s subject, description, priority or fields change' },
  { id: 'ticket.state_changed', label: 'A ticket moves to another state' },
  { id: 'ticket.comment_added', label: 'A comment is added to a ticket' },
] as const;
/** Operational events: about the workspace's other subscriptions, never the receiving one itself. */
export const OPERATIONAL_EVENTS = [
  { id: 'webhook.paused', label: 'Another webhook is paused after 20 failures in a row' },
  { id: 'webhook.disabled', label: 'Another webhook is disabled (its endpoint answered 410 Gone)' },
  { id: 'webhook.resumed', label: 'Another webhook is resumed' },
  { id: 'webhook.enabled', label: 'Another webhook is re-enabled' },
  { id: 'webhook.delivery_failed', label: 'A delivery to another webhook failed its last attempt' },
] as const;
/** The ticket's own fields a ticket.updated filter can name (custom fields go by their id). */
export const UPDATED_FIELDS = [
  { id: 'subject', name: 'Subject' },
  { id: 'description', name: 'Description' },
  { id: 'priority', name: 'Priority' },
] as const;
export const LOG_EVENT_TYPES = [...WEBHOOK_EVENTS.map((e) => e.id), ...OPERATIONAL_EVENTS.map((e) => e.id), 'webhook.test'];

export type { DeliveryStatus };
/** The filter's order of the schema's statuses. */
export const DELIVERY_STATUSES = ['succeeded', 'failed', 'pending', 'held', 'cancelled'] as const satisfies readonly DeliveryStatus[];

graphql(`
  fragment AttemptFields on WebhookDeliveryAttempt {
    id deliveryId eventId eventType attempt trigger status httpStatus durationMs responseExcerpt error payload attemptedAt nextAttemptAt
  }
`);
export const WEBHOOK_DELIVERIES = graphql(`
  query WebhookDeliveries($subscriptionId: String!, $status: DeliveryStatus, $eventType: String, $eventId: String, $first: Int, $after: String) {
    webhookDeliveries(subscriptionId: $subscriptionId, status: $status, eventType: $eventType, eventId: $eventId, first: $first, after: $after) {
      edges { node { ...AttemptFields } } pageInfo { hasNextPage endCursor }
    }
  }
`);
export type DeliveryAttempt = ResultOf<typeof WEBHOOK_DELIVERIES>['webhookDeliveries']['edges'][number]['node'];
export const STATS_PERIODS = ['24h', '7d', '30d'] as const;
export type StatsPeriod = (typeof STATS_PERIODS)[number];
export const WEBHOOK_DELIVERY_STATS = graphql(`
  query WebhookDeliveryStats($subscriptionId: String!, $period: String) {
    webhookDeliveryStats(subscriptionId: $subscriptionId, period: $period) {
      period bucket from to attempts succeeded failed successRate durationMs { p50 p95 p99 } series { start attempts succeeded failed }
    }
  }
`);
export type DeliveryStats = ResultOf<typeof WEBHOOK_DELIVERY_STATS>['webhookDeliveryStats'];
// Only what the page shows after these two: the list is read again afterwards.
export const CREATE_WEBHOOK = graphql(`
  mutation CreateWebhookSubscription($input: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $input) { id url secret } }
`);
export const ROTATE_WEBHOOK_SECRET = graphql(`mutation RotateWebhookSecret($id: String!) { rotateWebhookSecret(id: $id) { id secret } }`);
export const UPDATE_WEBHOOK = graphql(`
  mutation UpdateWebhookSubscription($id: String!, $input: UpdateWebhookSubscriptionInput!) {
    updateWebhookSubscription(id: $id, input: $input) { ...SubscriptionFields }
  }
`);
export const DELETE_WEBHOOK = graphql(`mutation DeleteWebhookSubscription($id: String!) { deleteWebhookSubscription(id: $id) }`);
export const SEND_WEBHOOK_TEST = graphql(`mutation SendWebhookTest($id: String!) { sendWebhookTest(id: $id) { eventId type } }`);
export const RESUME_WEBHOOK = graphql(`
  mutation ResumeWebhookSubscription($id: String!) { resumeWebhookSubscription(id: $id) { ...SubscriptionFields } }
`);
export const PAUSE_WEBHOOK = graphql(`
  mutation PauseWebhookSubscription($id: String!) { pauseWebhookSubscription(id: $id) { ...SubscriptionFields } }
`);
export const DISABLE_WEBHOOK = graphql(`
  mutation DisableWebhookSubscription($id: String!) { disableWebhookSubscription(id: $id) { ...SubscriptionFields } }
`);
export const ENABLE_WEBHOOK = graphql(`
  mutation EnableWebhookSubscription($id: String!) { enableWebhookSubscription(id: $id) { ...SubscriptionFields } }
`);
export const WEBHOOK_LIMITS = graphql(`query WebhookLimits { webhookLimits { minRatePerSecond maxInFlight retryMinDelaySeconds defaultRetryDelaysSeconds maxRetrySpanSeconds } }`);
export const RESEND_DELIVERY = graphql(`
  mutation ResendWebhookDelivery($subscriptionId: String!, $deliveryId: String!) {
    resendWebhookDelivery(subscriptionId: $subscriptionId, deliveryId: $deliveryId) { ...AttemptFields }
  }
`);
/** The failed attempts since a time, for the recovery's estimate (their deliveries, counted once). */
export const WEBHOOK_FAILED_SINCE = graphql(`
  query WebhookFailedSince($subscriptionId: String!, $since: DateTime!, $after: String) {
    webhookDeliveries(subscriptionId: $subscriptionId, status: failed, since: $since, first: 100, after: $after) {
      edges { node { deliveryId } } pageInfo { hasNextPage endCursor }
    }
  }
`);
export const RECOVER_DELIVERIES = graphql(`
  mutation RecoverWebhookDeliveries($subscriptionId: String!, $since: DateTime!) {
    recoverWebhookDeliveries(subscriptionId: $subscriptionId, since: $since) { id since until status }
  }
`);
export type WebhookRecovery = ResultOf<typeof RECOVER_DELIVERIES>['recoverWebhookDeliveries'];

export const BOARDS = graphql(`
  query Boards($first: Int, $after: String) {
    boards(first: $first, after: $after) { edges { node { id name fields { id name } } } pageInfo { hasNextPage endCursor } }
  }
`);
export type BoardSummary = ResultOf<typeof BOARDS>['boards']['edges'][number]['node'];

/** The audit log (administrators): newest first, filtered by action. */
export const AUDIT_LOG = graphql(`
  query AuditLog($first: Int, $after: String, $action: String) {
    auditLog(first: $first, after: $after, action: $action) {
      edges { node { id occurredAt action actor { type id label } address target { type id } changes { field before after } } }
      pageInfo { hasNextPage endCursor }
    }
  }
`);
export type AuditEntry = ResultOf<typeof AUDIT_LOG>['auditLog']['edges'][number]['node'];

/** The actions the audit log records (src/audit/audit.actions.ts; test/audit keeps the two equal), for its filter. */
export const AUDIT_ACTIONS = [
  'api_key.created',
  'api_key.revoked',
  'webhook_subscription.created',
  'webhook_subscription.updated',
  'webhook_subscription.deleted',
  'webhook_subscription.secret_rotated',
  'webhook_subscription.paused',
  'webhook_subscription.resumed',
  'webhook_subscription.disabled',
  'webhook_subscription.enabled',
  'webhook_subscription.test_sent',
  'webhook_subscription.recovery_started',
  'webhook_subscription.delivery_resend_requested',
  'session.signed_in',
  'session.sign_in_failed',
  'session.signed_out',
  'workspace.created',
  'board.created',
  'board.updated',
  'board.archived',
  'board.unarchived',
  'role.created',
  'role.updated',
  'user.invited',
  'user.invitation_revoked',
  'user.invitation_accepted',
  'user.role_changed',
  'user.deactivated',
  'user.reactivated',
] as const;

// Workspace administration: boards, roles, people (administrators).
graphql(`
  fragment AdminBoardFields on Board {
    id name description priorities archivedAt
    fields { id name type required options }
    states { id name category }
  }
`);
export const ADMIN_BOARDS = graphql(`
  query AdminBoards($first: Int, $after: String) {
    boards(first: $first, after: $after) { edges { node { ...AdminBoardFields } } pageInfo { hasNextPage endCursor } }
  }
`);
export type AdminBoard = ResultOf<typeof ADMIN_BOARDS>['boards']['edges'][number]['node'];
export const CREATE_BOARD = graphql(`mutation CreateBoard($input: CreateBoardInput!) { createBoard(input: $input) { ...AdminBoardFields } }`);
export const UPDATE_BOARD = graphql(`mutation UpdateBoard($id: String!, $input: UpdateBoardInput!) { updateBoard(id: $id, input: $input) { ...AdminBoardFields } }`);
export const ARCHIVE_BOARD = graphql(`mutation ArchiveBoard($id: String!) { archiveBoard(id: $id) { ...AdminBoardFields } }`);
export const UNARCHIVE_BOARD = graphql(`mutation UnarchiveBoard($id: String!) { unarchiveBoard(id: $id) { ...AdminBoardFields } }`);

graphql(`fragment AdminRoleFields on Role { id name isAdmin allBoards permissions boardIds builtIn }`);
export const ADMIN_ROLES = graphql(`query AdminRoles { roles { ...AdminRoleFields } }`);
export type AdminRole = ResultOf<typeof ADMIN_ROLES>['roles'][number];
export const CREATE_ROLE = graphql(`mutation CreateRole($input: CreateRoleInput!) { createRole(input: $input) { ...AdminRoleFields } }`);
export const UPDATE_ROLE = graphql(`mutation UpdateRole($id: Int!, $input: UpdateRoleInput!) { updateRole(id: $id, input: $input) { ...AdminRoleFields } }`);
/** What a custom role may do beyond reading (src/access/principal.ts ROLE_PERMISSIONS), with what each allows. */
export const ROLE_PERMISSIONS = [
  { id: 'tickets.write', label: 'Create and change tickets' },
  { id: 'kb.write', label: 'Write knowledge base articles' },
  { id: 'webhooks.manage', label: 'Manage webhooks' },
] as const;

graphql(`fragment PersonFields on User { id fullName email roleId role { id name } deactivatedAt createdAt }`);
export const PEOPLE = graphql(`
  query People($first: Int, $after: String) {
    users(first: $first, after: $after, kind: human) { edges { node { ...PersonFields } } pageInfo { hasNextPage endCursor } }
  }
`);
export type Person = ResultOf<typeof PEOPLE>['users']['edges'][number]['node'];
export const CHANGE_USER_ROLE = graphql(`mutation ChangeUserRole($id: Int!, $input: ChangeUserRoleInput!) { changeUserRole(id: $id, input: $input) { ...PersonFields } }`);
export const DEACTIVATE_USER = graphql(`mutation DeactivateUser($id: Int!) { deactivateUser(id: $id) { ...PersonFields } }`);
export const REACTIVATE_USER = graphql(`mutation ReactivateUser($id: Int!) { reactivateUser(id: $id) { ...PersonFields } }`);
export const INVITATIONS = graphql(`query Invitations { invitations { id email role { id name } expiresAt createdAt } }`);
export type Invitation = ResultOf<typeof INVITATIONS>['invitations'][number];
export const INVITE_USER = graphql(`mutation InviteUser($input: InviteUserInput!) { inviteUser(input: $input) { link emailed invitation { id email } } }`);
export const REVOKE_INVITATION = graphql(`mutation RevokeInvitation($id: String!) { revokeInvitation(id: $id) { id email } }`);
export const INVITATION_PREVIEW = graphql(`query InvitationPreview($token: String!) { invitation(token: $token) { email role { name } workspace { name domain } expiresAt } }`);
export const ACCEPT_INVITATION = graphql(`
  mutation AcceptInvitation($token: String!, $fullName: String!, $password: String!) {
    acceptInvitation(token: $token, fullName: $fullName, password: $password) { email workspace { domain } }
  }
`);
