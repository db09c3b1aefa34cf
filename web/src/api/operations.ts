// The GraphQL operations of the settings UI and the shapes they return (see schema.graphql).

export interface Viewer {
  id: number;
  fullName: string;
  email: string | null;
  isAdmin: boolean;
  csrfToken: string;
  role: { id: number; name: string };
  workspace: { name: string; domain: string };
}

const VIEWER_FIELDS = 'id fullName email isAdmin csrfToken role { id name } workspace { name domain }';

export const VIEWER = `query Viewer { viewer { ${VIEWER_FIELDS} } }`;
export const SIGN_IN = `mutation SignIn($email: String!, $password: String!) { signIn(email: $email, password: $password) { ${VIEWER_FIELDS} } }`;
export const SIGN_OUT = 'mutation SignOut { signOut }';

export interface Role {
  id: number;
  name: string;
  isAdmin: boolean;
  permissions: string[];
}
export const ROLES = 'query Roles { roles { id name isAdmin permissions } }';

export interface PageInfo {
  hasNextPage: boolean;
  endCursor: string | null;
}
export interface Connection<T> {
  edges: { node: T }[];
  pageInfo: PageInfo;
}

export interface ApiKey {
  id: number;
  name: string;
  prefix: string;
  scopes: string[];
  role: { id: number; name: string };
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  createdAt: string;
}
const API_KEY_FIELDS = 'id name prefix scopes role { id name } expiresAt lastUsedAt revokedAt createdAt';

export const API_KEYS = `query ApiKeys($first: Int, $after: String) {
  apiKeys(first: $first, after: $after) { edges { node { ${API_KEY_FIELDS} } } pageInfo { hasNextPage endCursor } }
}`;
export const CREATE_API_KEY = `mutation CreateApiKey($input: CreateApiKeyInput!) {
  createApiKey(input: $input) { value apiKey { ${API_KEY_FIELDS} } }
}`;
export const REVOKE_API_KEY = 'mutation RevokeApiKey($id: Int!) { revokeApiKey(id: $id) }';

/** The scopes a key can have (docs/integrators/api-conventions.md, "Scopes and roles"), with what each allows, for the New key form. */
export const API_SCOPES = [
  { id: 'tickets:read', label: 'Read tickets' },
  { id: 'tickets:write', label: 'Create and change tickets' },
  { id: 'boards:read', label: 'Read boards' },
  { id: 'users:read', label: 'Read users' },
  { id: 'kb:read', label: 'Read knowledge base articles' },
  { id: 'kb:write', label: 'Write knowledge base articles' },
  { id: 'webhooks:manage', label: 'Manage webhooks' },
] as const;

export interface Notification {
  id: number;
  kind: string;
  title: string;
  body: string;
  link: string | null;
  read: boolean;
  createdAt: string;
}
/** Webhook notices or ticket notices; null: all of them. */
export type NotificationTopic = 'webhooks' | 'tickets' | null;
export const NOTIFICATIONS = `query Notifications($first: Int, $after: String, $unreadOnly: Boolean, $topic: NotificationTopic) {
  notifications(first: $first, after: $after, unreadOnly: $unreadOnly, topic: $topic) {
    edges { node { id kind title body link read createdAt } } pageInfo { hasNextPage endCursor }
  }
}`;
export const MARK_NOTIFICATION_READ = 'mutation MarkNotificationRead($id: Int!) { markNotificationRead(id: $id) { id read } }';
/** The server counts up to this many (notification.repository.ts UNREAD_COUNT_CAP). */
export const UNREAD_COUNT_CAP = 1000;
/** The unread counts of the navigation and the page's tabs, in one request. */
export const UNREAD_NOTIFICATION_COUNT = `query UnreadNotificationCount {
  all: unreadNotificationCount webhooks: unreadNotificationCount(topic: webhooks) tickets: unreadNotificationCount(topic: tickets)
}`;
export interface UnreadCounts {
  all: number;
  webhooks: number;
  tickets: number;
}
export const MARK_ALL_NOTIFICATIONS_READ = `mutation MarkAllNotificationsRead($topic: NotificationTopic, $throughId: Int) {
  markAllNotificationsRead(topic: $topic, throughId: $throughId)
}`;

export type SubscriptionCondition = 'receiving' | 'paused' | 'disabled';

export interface WebhookSubscription {
  id: string;
  url: string;
  events: string[];
  boards: string[];
  /** ticket.updated: only updates changing one of these (field names or custom field ids); empty: all. */
  fields: string[];
  description: string;
  condition: SubscriptionCondition;
  /** Why it is paused or disabled: by the service (failures, gone) or by a person (manual). */
  conditionReason: 'failures' | 'gone' | 'manual' | null;
  consecutiveFailures: number;
  maxInFlight: number;
  ratePerSecond: number | null;
  effectiveInFlight: number;
  retryAfterUntil: string | null;
  ordering: WebhookOrdering;
  backlog: WebhookBacklog;
  health: WebhookHealth;
  createdAt: string;
  updatedAt: string;
}
export type WebhookOrdering = 'concurrent' | 'strict';
export type WebhookBacklogWait = 'nothing' | 'in_flight_bound' | 'next_attempt' | 'paused' | 'rate';
/** What waits to be sent now, and for what (the subscription's delivery run). */
export interface WebhookBacklog {
  pending: number;
  inFlight: number;
  oldestWaitingSince: string | null;
  waitingFor: WebhookBacklogWait;
}
export interface HealthAttempt {
  status: 'succeeded' | 'failed';
  httpStatus: number | null;
  error: string | null;
  attemptedAt: string;
  eventType: string;
}
/** The last 24 hours and the newest attempts, loaded with the subscription (one statement for a whole list). */
export interface WebhookHealth {
  attempts24h: number;
  successRate24h: number | null;
  lastAttempt: HealthAttempt | null;
  lastFailure: HealthAttempt | null;
}
const HEALTH_ATTEMPT = '{ status httpStatus error attemptedAt eventType }';
const SUBSCRIPTION_FIELDS =
  'id url events boards fields description condition conditionReason consecutiveFailures maxInFlight ratePerSecond effectiveInFlight retryAfterUntil ordering ' +
  `backlog { pending inFlight oldestWaitingSince waitingFor } health { attempts24h successRate24h lastAttempt ${HEALTH_ATTEMPT} lastFailure ${HEALTH_ATTEMPT} } createdAt updatedAt`;

export interface WebhookSubscriptionWithSecret extends WebhookSubscription {
  secret: string;
}

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

export const DELIVERY_STATUSES = ['succeeded', 'failed', 'pending', 'held', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface DeliveryAttempt {
  id: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  trigger: string;
  status: DeliveryStatus;
  httpStatus: number | null;
  durationMs: number | null;
  responseExcerpt: string | null;
  error: string | null;
  payload: unknown;
  attemptedAt: string | null;
  nextAttemptAt: string | null;
}
const ATTEMPT_FIELDS =
  'id deliveryId eventId eventType attempt trigger status httpStatus durationMs responseExcerpt error payload attemptedAt nextAttemptAt';

export const WEBHOOK_SUBSCRIPTIONS = `query WebhookSubscriptions($first: Int, $after: String) {
  webhookSubscriptions(first: $first, after: $after) { edges { node { ${SUBSCRIPTION_FIELDS} } } pageInfo { hasNextPage endCursor } }
}`;
export const WEBHOOK_SUBSCRIPTION = `query WebhookSubscription($id: String!) { webhookSubscription(id: $id) { ${SUBSCRIPTION_FIELDS} secretRotatedAt } }`;
export const WEBHOOK_DELIVERIES = `query WebhookDeliveries($subscriptionId: String!, $status: DeliveryStatus, $eventType: String, $eventId: String, $first: Int, $after: String) {
  webhookDeliveries(subscriptionId: $subscriptionId, status: $status, eventType: $eventType, eventId: $eventId, first: $first, after: $after) {
    edges { node { ${ATTEMPT_FIELDS} } } pageInfo { hasNextPage endCursor }
  }
}`;
export const STATS_PERIODS = ['24h', '7d', '30d'] as const;
export type StatsPeriod = (typeof STATS_PERIODS)[number];
export interface StatsBucket {
  start: string;
  attempts: number;
  succeeded: number;
  failed: number;
}
export interface DeliveryStats {
  period: StatsPeriod;
  bucket: 'hour' | 'day';
  from: string;
  to: string;
  attempts: number;
  succeeded: number;
  failed: number;
  successRate: number | null;
  durationMs: { p50: number | null; p95: number | null; p99: number | null };
  series: StatsBucket[];
}
export const WEBHOOK_DELIVERY_STATS = `query WebhookDeliveryStats($subscriptionId: String!, $period: String) {
  webhookDeliveryStats(subscriptionId: $subscriptionId, period: $period) {
    period bucket from to attempts succeeded failed successRate durationMs { p50 p95 p99 } series { start attempts succeeded failed }
  }
}`;
export const CREATE_WEBHOOK = `mutation CreateWebhookSubscription($input: CreateWebhookSubscriptionInput!) {
  createWebhookSubscription(input: $input) { ${SUBSCRIPTION_FIELDS} secret }
}`;
export const UPDATE_WEBHOOK = `mutation UpdateWebhookSubscription($id: String!, $input: UpdateWebhookSubscriptionInput!) {
  updateWebhookSubscription(id: $id, input: $input) { ${SUBSCRIPTION_FIELDS} }
}`;
export const DELETE_WEBHOOK = 'mutation DeleteWebhookSubscription($id: String!) { deleteWebhookSubscription(id: $id) }';
export const ROTATE_WEBHOOK_SECRET = `mutation RotateWebhookSecret($id: String!) { rotateWebhookSecret(id: $id) { ${SUBSCRIPTION_FIELDS} secret } }`;
export const SEND_WEBHOOK_TEST = 'mutation SendWebhookTest($id: String!) { sendWebhookTest(id: $id) { eventId type } }';
export const RESUME_WEBHOOK = `mutation ResumeWebhookSubscription($id: String!) { resumeWebhookSubscription(id: $id) { ${SUBSCRIPTION_FIELDS} } }`;
export const PAUSE_WEBHOOK = `mutation PauseWebhookSubscription($id: String!) { pauseWebhookSubscription(id: $id) { ${SUBSCRIPTION_FIELDS} } }`;
export const DISABLE_WEBHOOK = `mutation DisableWebhookSubscription($id: String!) { disableWebhookSubscription(id: $id) { ${SUBSCRIPTION_FIELDS} } }`;
export const WEBHOOK_LIMITS = 'query WebhookLimits { webhookLimits { minRatePerSecond maxInFlight } }';
export interface WebhookLimits {
  minRatePerSecond: number;
  maxInFlight: number;
}
export const ENABLE_WEBHOOK = `mutation EnableWebhookSubscription($id: String!) { enableWebhookSubscription(id: $id) { ${SUBSCRIPTION_FIELDS} } }`;
export const RESEND_DELIVERY = `mutation ResendWebhookDelivery($subscriptionId: String!, $deliveryId: String!) {
  resendWebhookDelivery(subscriptionId: $subscriptionId, deliveryId: $deliveryId) { ${ATTEMPT_FIELDS} }
}`;
/** The failed attempts since a time, for the recovery's estimate (their deliveries, counted once). */
export const WEBHOOK_FAILED_SINCE = `query WebhookFailedSince($subscriptionId: String!, $since: DateTime!, $after: String) {
  webhookDeliveries(subscriptionId: $subscriptionId, status: failed, since: $since, first: 100, after: $after) {
    edges { node { deliveryId } } pageInfo { hasNextPage endCursor }
  }
}`;
export const RECOVER_DELIVERIES = `mutation RecoverWebhookDeliveries($subscriptionId: String!, $since: DateTime!) {
  recoverWebhookDeliveries(subscriptionId: $subscriptionId, since: $since) { id since until status }
}`;
export interface WebhookRecovery {
  id: string;
  since: string;
  until: string;
  status: 'running' | 'finished';
}

export interface BoardSummary {
  id: string;
  name: string;
  fields: { id: string; name: string }[];
}
export const BOARDS =
  'query Boards($first: Int, $after: String) { boards(first: $first, after: $after) { edges { node { id name fields { id name } } } pageInfo { hasNextPage endCursor } } }';
