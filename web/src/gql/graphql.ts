/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type AuditActorType =
  | 'api_key'
  | 'operator'
  | 'person';

export type AuditTargetType =
  | 'api_key'
  | 'board'
  | 'invitation'
  | 'role'
  | 'user'
  | 'webhook_subscription'
  | 'workspace';

/** An IAM access key; write-only */
export type AwsCredentialsInput = {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | null | undefined;
};

export type BoardFieldInput = {
  name: string;
  /** The choices of a select or multiselect field */
  options?: Array<string> | null | undefined;
  required?: boolean | null | undefined;
  type: FieldType;
};

export type BoardStateInput = {
  category: StateCategory;
  /** New tickets start here (at most one; none: the first state) */
  initial?: boolean | null | undefined;
  name: string;
};

export type ChangeUserRoleInput = {
  roleId: number;
};

export type CreateApiKeyInput = {
  expiresAt?: string | null | undefined;
  name: string;
  roleId: number;
  scopes: Array<string>;
};

export type CreateBoardInput = {
  description?: string | null | undefined;
  fields?: Array<BoardFieldInput> | null | undefined;
  name: string;
  priorities: Array<string>;
  states: Array<BoardStateInput>;
};

export type CreateRoleInput = {
  allBoards?: boolean | null | undefined;
  /** At most 100 board ids of the workspace */
  boardIds?: Array<string> | null | undefined;
  isAdmin?: boolean | null | undefined;
  name: string;
  /** tickets.write, kb.write, webhooks.manage */
  permissions?: Array<string> | null | undefined;
};

export type CreateWebhookSubscriptionInput = {
  /** Board ids; empty or absent means every board */
  boards?: Array<string> | null | undefined;
  description?: string | null | undefined;
  /** Where deliveries go when not to an HTTPS `url`: a queue or bus (Amazon SQS, Amazon EventBridge, Apache Kafka, RabbitMQ, NATS JetStream), with the same body and Standard Webhooks headers (signature included) as message attributes or headers. Send either `url` (https) or `destination`. Credentials are write-only: stored sealed, never returned; send them again with any change of `destination`. Broker addresses follow the URL rule (public addresses only, encrypted connections) outside development. */
  destination?: WebhookDestinationInput | null | undefined;
  /** Event types to receive (at least one): `ticket.created`, `ticket.updated`, `ticket.state_changed`, `ticket.comment_added`, `webhook.paused`, `webhook.disabled`, `webhook.resumed`, `webhook.enabled`, `webhook.delivery_failed` */
  events: Array<string>;
  /** Only for `ticket.updated`: receive only the updates whose `changes` name one of these fields (`subject`, `description`, `priority`, or the id of a custom field of the workspace's boards, which `changes` names `fields.<id>`: either form, saved as the id); empty or absent: every update. At most 50. Other event types are not affected, and test events ignore it. A state change is the event `ticket.state_changed`, not a field here. Needs `ticket.updated` among `events`. */
  fields?: Array<string> | null | undefined;
  /** Attempts open at once at most (default 10, at most the service’s maximum, 50 by default); further deliveries wait, oldest event first, without counting as failures */
  maxInFlight?: number | null | undefined;
  /** `concurrent` (default): up to the bound in force at once, oldest event first. `strict`: one at a time in event order; the next event waits until the previous one succeeded or used its last attempt (so a failing endpoint holds back the rest for up to the schedule’s ~35 hours). */
  ordering?: WebhookOrdering | null | undefined;
  /** `full` (default): each event carries the ticket after the change. `thin`: ticket events carry only `{object: "ticket", id, version, changedFields, url}` (`changes` null, no `comment`, and `payload: "thin"`); the receiver fetches the ticket, whose ETag is `"<version>"` while it is current (`If-Match` with it makes a change conditional on that); `webhook.*` events are the same in both. A change applies to the events relayed after it: deliveries already written keep the form they were written with. */
  payload?: WebhookPayload | null | undefined;
  /** Attempts started per second at most, evenly spaced; null: no rate bound; at least the service’s minimum (WEBHOOK_MIN_RATE_PER_SECOND, 0.1 by default): validation_failed below it */
  ratePerSecond?: number | null | undefined;
  /** null: back to the default schedule */
  retrySchedule?: WebhookRetryScheduleInput | null | undefined;
  /** https, port 443 or 8443, a public address */
  url?: string | null | undefined;
};

export type DeliveryStatus =
  | 'cancelled'
  | 'failed'
  | 'held'
  | 'pending'
  | 'succeeded';

export type EventBridgeDestinationInput = {
  credentials: AwsCredentialsInput;
  endpoint?: string | null | undefined;
  eventBusName: string;
  region: string;
  sourcePrefix?: string | null | undefined;
};

export type FieldType =
  | 'boolean'
  | 'date'
  | 'multiselect'
  | 'number'
  | 'select'
  | 'text';

export type InviteUserInput = {
  email: string;
  roleId: number;
};

export type KafkaDestinationInput = {
  brokers: Array<string>;
  credentials?: UserPasswordInput | null | undefined;
  /** plain, scram-sha-256 or scram-sha-512 */
  sasl?: string | null | undefined;
  tls?: boolean | null | undefined;
  topic: string;
};

/** Either a token, or a user name and password; write-only */
export type NatsCredentialsInput = {
  password?: string | null | undefined;
  token?: string | null | undefined;
  username?: string | null | undefined;
};

export type NatsDestinationInput = {
  credentials?: NatsCredentialsInput | null | undefined;
  servers: Array<string>;
  subject: string;
  tls?: boolean | null | undefined;
};

export type NotificationTopic =
  /** About tickets (`ticket.*`) */
  | 'tickets'
  /** About webhook subscriptions (`webhook.*`: paused, disabled) */
  | 'webhooks';

export type RabbitMqDestinationInput = {
  credentials: UserPasswordInput;
  exchange: string;
  routingKeyPrefix?: string | null | undefined;
  url: string;
};

export type SqsDestinationInput = {
  credentials: AwsCredentialsInput;
  queueUrl: string;
  region?: string | null | undefined;
};

export type StateCategory =
  | 'closed'
  | 'open'
  | 'pending'
  | 'solved';

export type SubscriptionCondition =
  /** After a 410 Gone: nothing is sent, pending deliveries are cancelled, until enabled */
  | 'disabled'
  /** After 20 consecutive failures: nothing is sent, deliveries are held until resumed */
  | 'paused'
  /** Deliveries are sent */
  | 'receiving';

export type SubscriptionConditionReason =
  /** Paused by the service after 20 failed attempts in a row */
  | 'failures'
  /** Disabled by the service: the endpoint answered 410 Gone */
  | 'gone'
  /** Paused or disabled by a person */
  | 'manual'
  /** Disabled by the service: a broker destination refused deliveries for good (no such queue or topic, access denied, bad credentials) */
  | 'rejected';

export type UpdateBoardInput = {
  description?: string | null | undefined;
  name?: string | null | undefined;
};

export type UpdateRoleInput = {
  allBoards?: boolean | null | undefined;
  /** At most 100 board ids of the workspace */
  boardIds?: Array<string> | null | undefined;
  isAdmin?: boolean | null | undefined;
  name?: string | null | undefined;
  /** tickets.write, kb.write, webhooks.manage */
  permissions?: Array<string> | null | undefined;
};

/** The members to change; at least one */
export type UpdateWebhookSubscriptionInput = {
  /** Board ids; empty or absent means every board */
  boards?: Array<string> | null | undefined;
  description?: string | null | undefined;
  /** Where deliveries go when not to an HTTPS `url`: a queue or bus (Amazon SQS, Amazon EventBridge, Apache Kafka, RabbitMQ, NATS JetStream), with the same body and Standard Webhooks headers (signature included) as message attributes or headers. Send either `url` (https) or `destination`. Credentials are write-only: stored sealed, never returned; send them again with any change of `destination`. Broker addresses follow the URL rule (public addresses only, encrypted connections) outside development. */
  destination?: WebhookDestinationInput | null | undefined;
  /** Event types to receive (at least one): `ticket.created`, `ticket.updated`, `ticket.state_changed`, `ticket.comment_added`, `webhook.paused`, `webhook.disabled`, `webhook.resumed`, `webhook.enabled`, `webhook.delivery_failed` */
  events?: Array<string> | null | undefined;
  /** Only for `ticket.updated`: receive only the updates whose `changes` name one of these fields (`subject`, `description`, `priority`, or the id of a custom field of the workspace's boards, which `changes` names `fields.<id>`: either form, saved as the id); empty or absent: every update. At most 50. Other event types are not affected, and test events ignore it. A state change is the event `ticket.state_changed`, not a field here. Needs `ticket.updated` among `events`. */
  fields?: Array<string> | null | undefined;
  /** Attempts open at once at most (default 10, at most the service’s maximum, 50 by default); further deliveries wait, oldest event first, without counting as failures */
  maxInFlight?: number | null | undefined;
  /** `concurrent` (default): up to the bound in force at once, oldest event first. `strict`: one at a time in event order; the next event waits until the previous one succeeded or used its last attempt (so a failing endpoint holds back the rest for up to the schedule’s ~35 hours). */
  ordering?: WebhookOrdering | null | undefined;
  /** `full` (default): each event carries the ticket after the change. `thin`: ticket events carry only `{object: "ticket", id, version, changedFields, url}` (`changes` null, no `comment`, and `payload: "thin"`); the receiver fetches the ticket, whose ETag is `"<version>"` while it is current (`If-Match` with it makes a change conditional on that); `webhook.*` events are the same in both. A change applies to the events relayed after it: deliveries already written keep the form they were written with. */
  payload?: WebhookPayload | null | undefined;
  /** Attempts started per second at most, evenly spaced; null: no rate bound; at least the service’s minimum (WEBHOOK_MIN_RATE_PER_SECOND, 0.1 by default): validation_failed below it; null removes it */
  ratePerSecond?: number | null | undefined;
  /** null: back to the default schedule */
  retrySchedule?: WebhookRetryScheduleInput | null | undefined;
  /** https, port 443 or 8443, a public address */
  url?: string | null | undefined;
};

/** A user name and password; write-only */
export type UserPasswordInput = {
  password: string;
  username: string;
};

export type WebhookBacklogWait =
  /** The subscription has its bound in force (effectiveInFlight) of attempts open */
  | 'in_flight_bound'
  /** Only retries wait, each for its next scheduled attempt */
  | 'next_attempt'
  /** Nothing waits, or what waits is being sent */
  | 'nothing'
  /** The subscription is paused: its deliveries are held until it is resumed */
  | 'paused'
  /** The subscription’s rate (ratePerSecond) */
  | 'rate'
  /** The receiver’s Retry-After (retryAfterUntil) */
  | 'retry_after'
  /** The workspace has the service’s maximum of attempts in flight across its subscriptions */
  | 'workspace_cap';

/** A broker destination: exactly one member, named by its type */
export type WebhookDestinationInput =
  {   eventbridge: EventBridgeDestinationInput; kafka?: never; nats?: never; rabbitmq?: never; sqs?: never; }
  |  { eventbridge?: never;   kafka: KafkaDestinationInput; nats?: never; rabbitmq?: never; sqs?: never; }
  |  { eventbridge?: never; kafka?: never;   nats: NatsDestinationInput; rabbitmq?: never; sqs?: never; }
  |  { eventbridge?: never; kafka?: never; nats?: never;   rabbitmq: RabbitMqDestinationInput; sqs?: never; }
  |  { eventbridge?: never; kafka?: never; nats?: never; rabbitmq?: never;   sqs: SqsDestinationInput; };

export type WebhookDestinationType =
  | 'eventbridge'
  | 'https'
  | 'kafka'
  | 'nats'
  | 'rabbitmq'
  | 'sqs';

export type WebhookOrdering =
  /** Up to the bound in force at once, oldest event first */
  | 'concurrent'
  /** One at a time, in event order */
  | 'strict';

export type WebhookPayload =
  /** Each event carries the ticket after the change (the default) */
  | 'full'
  /** Ticket events carry only the ticket’s id, version, changed fields and link */
  | 'thin';

export type WebhookRecoveryStatus =
  /** Done (a repeated request got the recovery it started earlier) */
  | 'finished'
  /** Re-sending */
  | 'running';

/** Shortens the retry schedule: `delaysSeconds` are the waits after each failed attempt (each ±10% jitter), so n delays make n + 1 attempts; `[]` makes one attempt and no retry. At most 6 delays, each at least the service’s minimum (WEBHOOK_RETRY_MIN_DELAY_SECONDS, 60 by default) and at most 86400, adding up to at most 124560 (the default’s span): validation_failed otherwise. Absent or null: the default (60, 300, 1800, 7200, 28800, 86400). A change applies to waiting deliveries from their next failure on. */
export type WebhookRetryScheduleInput = {
  /** Seconds to wait after each failed attempt but the last; at most 6 */
  delaysSeconds: Array<number>;
};

export type WebhookStatsBucketSize =
  /** One UTC day (periods 7d and 30d) */
  | 'day'
  /** One UTC hour (period 24h) */
  | 'hour';

export type ViewerFieldsFragment = { id: number, fullName: string, email: string | null, isAdmin: boolean, csrfToken: string, role: { id: number, name: string }, workspace: { name: string, domain: string } };

export type ViewerQueryVariables = Exact<{ [key: string]: never; }>;


export type ViewerQuery = { viewer: { id: number, fullName: string, email: string | null, isAdmin: boolean, csrfToken: string, role: { id: number, name: string }, workspace: { name: string, domain: string } } | null };

export type SignInMutationVariables = Exact<{
  email: string;
  password: string;
  workspace?: string | null | undefined;
}>;


export type SignInMutation = { signIn: { id: number, fullName: string, email: string | null, isAdmin: boolean, csrfToken: string, role: { id: number, name: string }, workspace: { name: string, domain: string } } };

export type SignOutMutationVariables = Exact<{ [key: string]: never; }>;


export type SignOutMutation = { signOut: boolean };

export type RolesQueryVariables = Exact<{ [key: string]: never; }>;


export type RolesQuery = { roles: Array<{ id: number, name: string, isAdmin: boolean, permissions: Array<string> }> };

export type ApiKeyFieldsFragment = { id: number, name: string, prefix: string, scopes: Array<string>, expiresAt: string | null, lastUsedAt: string | null, revokedAt: string | null, createdAt: string, role: { id: number, name: string } };

export type ApiKeysQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type ApiKeysQuery = { apiKeys: { edges: Array<{ node: { id: number, name: string, prefix: string, scopes: Array<string>, expiresAt: string | null, lastUsedAt: string | null, revokedAt: string | null, createdAt: string, role: { id: number, name: string } } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type CreateApiKeyMutationVariables = Exact<{
  input: CreateApiKeyInput;
}>;


export type CreateApiKeyMutation = { createApiKey: { value: string, apiKey: { id: number, name: string, prefix: string, scopes: Array<string>, expiresAt: string | null, lastUsedAt: string | null, revokedAt: string | null, createdAt: string, role: { id: number, name: string } } } };

export type RevokeApiKeyMutationVariables = Exact<{
  id: number;
}>;


export type RevokeApiKeyMutation = { revokeApiKey: boolean };

export type NotificationsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  unreadOnly?: boolean | null | undefined;
  topic?: NotificationTopic | null | undefined;
}>;


export type NotificationsQuery = { notifications: { edges: Array<{ node: { id: number, kind: string, title: string, body: string, link: string | null, read: boolean, createdAt: string } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type MarkNotificationReadMutationVariables = Exact<{
  id: number;
}>;


export type MarkNotificationReadMutation = { markNotificationRead: { id: number, read: boolean } };

export type UnreadNotificationCountQueryVariables = Exact<{ [key: string]: never; }>;


export type UnreadNotificationCountQuery = { all: number, webhooks: number, tickets: number };

export type MarkAllNotificationsReadMutationVariables = Exact<{
  topic?: NotificationTopic | null | undefined;
  throughId?: number | null | undefined;
}>;


export type MarkAllNotificationsReadMutation = { markAllNotificationsRead: number };

export type HealthAttemptFieldsFragment = { status: string, httpStatus: number | null, error: string | null, attemptedAt: string, eventType: string };

export type SubscriptionFieldsFragment = { id: string, url: string, events: Array<string>, boards: Array<string>, fields: Array<string>, description: string, condition: SubscriptionCondition, conditionReason: SubscriptionConditionReason | null, consecutiveFailures: number, maxInFlight: number, ratePerSecond: number | null, effectiveInFlight: number, retryAfterUntil: string | null, ordering: WebhookOrdering, payload: WebhookPayload, createdAt: string, updatedAt: string, destination:
    | { __typename: 'EventBridgeDestination', type: WebhookDestinationType, eventBusName: string, region: string, endpoint: string | null, sourcePrefix: string }
    | { __typename: 'HttpsDestination', type: WebhookDestinationType, url: string }
    | { __typename: 'KafkaDestination', type: WebhookDestinationType, brokers: Array<string>, topic: string, tls: boolean, sasl: string | null }
    | { __typename: 'NatsDestination', type: WebhookDestinationType, servers: Array<string>, subject: string, tls: boolean }
    | { __typename: 'RabbitMqDestination', type: WebhookDestinationType, url: string, exchange: string, routingKeyPrefix: string }
    | { __typename: 'SqsDestination', type: WebhookDestinationType, queueUrl: string, region: string, fifo: boolean }
  , backlog: { pending: number, inFlight: number, oldestWaitingSince: string | null, waitingFor: WebhookBacklogWait }, health: { attempts24h: number, successRate24h: number | null, lastAttempt: { status: string, httpStatus: number | null, error: string | null, attemptedAt: string, eventType: string } | null, lastFailure: { status: string, httpStatus: number | null, error: string | null, attemptedAt: string, eventType: string } | null }, retrySchedule: { delaysSeconds: Array<number>, maxAttempts: number, spanSeconds: number, custom: boolean } };

export type WebhookSubscriptionsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type WebhookSubscriptionsQuery = { webhookSubscriptions: { edges: Array<{ node: { id: string, url: string, events: Array<string>, boards: Array<string>, fields: Array<string>, description: string, condition: SubscriptionCondition, conditionReason: SubscriptionConditionReason | null, consecutiveFailures: number, maxInFlight: number, ratePerSecond: number | null, effectiveInFlight: number, retryAfterUntil: string | null, ordering: WebhookOrdering, payload: WebhookPayload, createdAt: string, updatedAt: string, destination:
          | { __typename: 'EventBridgeDestination', type: WebhookDestinationType, eventBusName: string, region: string, endpoint: string | null, sourcePrefix: string }
          | { __typename: 'HttpsDestination', type: WebhookDestinationType, url: string }
          | { __typename: 'KafkaDestination', type: WebhookDestinationType, brokers: Array<string>, topic: string, tls: boolean, sasl: string | null }
          | { __typename: 'NatsDestination', type: WebhookDestinationType, servers: Array<string>, subject: string, tls: boolean }
          | { __typename: 'RabbitMqDestination', type: WebhookDestinationType, url: string, exchange: string, routingKeyPrefix: string }
          | { __typename: 'SqsDestination', type: WebhookDestinationType, queueUrl: string, region: string, fifo: boolean }
        , backlog: { pending: number, inFlight: number, oldestWaitingSince: string | null, waitingFor: WebhookBacklogWait }, health: { attempts24h: number, successRate24h: number | null, lastAttempt: { status: string, httpStatus: number | null, error: string | null, attemptedAt: string, eventType: string } | null, lastFailure: { status: string, httpStatus: number | null, error: string | null, attemptedAt: string, eventType: string } | null }, retrySchedule: { delaysSeconds: Array<number>, maxAttempts: number, spanSeconds: number, custom: boolean } } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type WebhookSubscriptionQueryVariables = Exact<{
  id: string;
}>;


export type WebhookSubscriptionQuery = { webhookSubscription: { secretRotatedAt: string | null, id: string, url: string, events: Array<string>, boards: Array<string>, fields: Array<string>, description: string, condition: SubscriptionCondition, conditionReason: SubscriptionConditionReason | null, consecutiveFailures: number, maxInFlight: number, ratePerSecond: number | null, effectiveInFlight: number, retryAfterUntil: string | null, ordering: WebhookOrdering, payload: WebhookPayload, createdAt: string, updatedAt: string, destination:
      | { __typename: 'EventBridgeDestination', type: WebhookDestinationType, eventBusName: string, region: string, endpoint: string | null, sourcePrefix: string }
      | { __typename: 'HttpsDestination', type: WebhookDestinationType, url: string }
      | { __typename: 'KafkaDestination', type: WebhookDestinationType, brokers: Array<string>, topic: string, tls: boolean, sasl: string | null }
      | { __typename: 'NatsDestination', type: WebhookDestinationType, servers: Array<string>, subject: string, tls: boolean }
      | { __typename: 'RabbitMqDestination', type: WebhookDestinationType, url: string, exchange: string, routingKeyPrefix: string }
      | { __typename: 'SqsDestination', type: WebhookDestinationType, queueUrl: string, region: string, fifo: boolean }
    , backlog: { pending: number, inFlight: number, oldestWaitingSince: string | null, waitingFor: WebhookBacklogWait }, health: { attempts24h: number, successRate24h: number | null, lastAttempt: { status: string, httpStatus: number | null, error: string | null, attemptedAt: string, eventType: string } | null, lastFailure: { status: string, httpStatus: number | null, error: string | null, attemptedAt: string, eventType: string } | null }, retrySchedule: { delaysSeconds: Array<number>, maxAttempts: number, spanSeconds: number, custom: boolean } } };

export type AttemptFieldsFragment = { id: string, deliveryId: string, eventId: string, eventType: string, attempt: number, trigger: string, status: DeliveryStatus, httpStatus: number | null, durationMs: number | null, responseExcerpt: string | null, error: string | null, payload: unknown, attemptedAt: string | null, nextAttemptAt: string | null };

export type WebhookDeliveriesQueryVariables = Exact<{
  subscriptionId: string;
  status?: DeliveryStatus | null | undefined;
  eventType?: string | null | undefined;
  eventId?: string | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type WebhookDeliveriesQuery = { webhookDeliveries: { edges: Array<{ node: { id: string, deliveryId: string, eventId: string, eventType: string, attempt: number, trigger: string, status: DeliveryStatus, httpStatus: number | null, durationMs: number | null, responseExcerpt: string | null, error: string | null, payload: unknown, attemptedAt: string | null, nextAttemptAt: string | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type WebhookDeliveryStatsQueryVariables = Exact<{
  subscriptionId: string;
  period?: string | null | undefined;
}>;


export type WebhookDeliveryStatsQuery = { webhookDeliveryStats: { period: string, bucket: WebhookStatsBucketSize, from: string, to: string, attempts: number, succeeded: number, failed: number, successRate: number | null, durationMs: { p50: number | null, p95: number | null, p99: number | null }, series: Array<{ start: string, attempts: number, succeeded: number, failed: number }> } };

export type CreateWebhookSubscriptionMutationVariables = Exact<{
  input: CreateWebhookSubscriptionInput;
}>;


export type CreateWebhookSubscriptionMutation = { createWebhookSubscription: { id: string, url: string, secret: string } };

export type RotateWebhookSecretMutationVariables = Exact<{
  id: string;
}>;


export type RotateWebhookSecretMutation = { rotateWebhookSecret: { id: string, secret: string } };

export type UpdateWebhookSubscriptionMutationVariables = Exact<{
  id: string;
  input: UpdateWebhookSubscriptionInput;
}>;


export type UpdateWebhookSubscriptionMutation = { updateWebhookSubscription: { id: string, url: string, events: Array<string>, boards: Array<string>, fields: Array<string>, description: string, condition: SubscriptionCondition, conditionReason: SubscriptionConditionReason | null, consecutiveFailures: number, maxInFlight: number, ratePerSecond: number | null, effectiveInFlight: number, retryAfterUntil: string | null, ordering: WebhookOrdering, payload: WebhookPayload, createdAt: string, updatedAt: string, destination:
      | { __typename: 'EventBridgeDestination', type: WebhookDestinationType, eventBusName: string, region: string, endpoint: string | null, sourcePrefix: string }
      | { __typename: 'HttpsDestination', type: WebhookDestinationType, url: string }
      | { __typename: 'KafkaDestination', type: WebhookDestinationType, brokers: Array<string>, topic: string, tls: boolean, sasl: string | null }
      | { __typename: 'NatsDestination', type: WebhookDestinationType, servers: Array<string>, subject: string, tls: boolean }
      | { __typename: 'RabbitMqDestination', type: WebhookDestinationType, url: string, exchange: string, routingKeyPrefix: string }
      | { __typename: 'SqsDestination', type: WebhookDestinationType, queueUrl: string, region: string, fifo: boolean }
    , backlog: { pending: number, inFlight: number, oldestWaitingSince: string | null, waitingFor: WebhookBacklogWait }, health: { attempts24h: number, successRate24h: number | null, lastAttempt: { status: string, httpStatus: number | null, error: string | null, attemptedAt: string, eventType: string } | null, lastFailure: { status: string, httpStatus: number | null, error: string | null, attemptedAt: string, eventType: string } | null }, retrySchedule: { delaysSeconds: Array<number>, maxAttempts: number, spanSeconds: number, custom: boolean } } };

export type DeleteWebhookSubscriptionMutationVariables = Exact<{
  id: string;
}>;


export type DeleteWebhookSubscriptionMutation = { deleteWebhookSubscription: boolean };

export type SendWebhookTestMutationVariables = Exact<{
  id: string;
}>;


export type SendWebhookTestMutation = { sendWebhookTest: { eventId: string, type: string } };

export type ResumeWebhookSubscriptionMutationVariables = Exact<{
  id: string;
}>;


export type ResumeWebhookSubscriptionMutation = { resumeWebhookSubscription: { id: string, url: string, events: Array<string>, boards: Array<string>, fields: Array<string>, description: string, condition: SubscriptionCondition, conditionReason: SubscriptionConditionReason | null, consecutiveFailures: number, maxInFlight: number, ratePerSecond: number | null, effectiveInFlight: number, retryAfterUntil: string | null, ordering: WebhookOrdering, payload: WebhookPayload, createdAt: string, updatedAt: string, destination:
      | { __typename: 'EventBridgeDestination', type: WebhookDestinationType, eventBusName: string, region: string, endpoint: string | null, sourcePrefix: string }
      | { __typename: 'HttpsDestination', type: WebhookDestinationType, url: string }
      | { __typename: 'KafkaDestination', type: WebhookDestinationType, brokers: Array<string>, topic: string, tls: boolean, sasl: string | null }
      | { __typename: 'NatsDestination', type: WebhookDestinationType, servers: Array<string>, subject: string, tls: boolean }
      | { __typename: 'RabbitMqDestination', type: WebhookDestinationType, url: string, exchange: string, routingKeyPrefix: string }
      | { __typename: 'SqsDestination', type: WebhookDestinationType, queueUrl: string, region: string, fifo: boolean }
    , backlog: { pending: number, inFlight: number, oldestWaitingSince: string | null, waitingFor: WebhookBacklogWait }, health: { attempts24h: number, successRate24h: number | null, lastAttempt: { status: string, httpStatus: number | null, error: string | null, attemptedAt: string, eventType: string } | null, lastFailure: { status: string, httpStatus: number | null, error: string | null, attemptedAt: string, eventType: string } | null }, retrySchedule: { delaysSeconds: Array<number>, maxAttempts: number, spanSeconds: number, custom: boolean } } };

export type PauseWebhookSubscriptionMutationVariables = Exact<{
  id: string;
}>;


export type PauseWebhookSubscriptionMutation = { pauseWebhookSubscription: { id: string, url: string, events: Array<string>, boards: Array<string>, fields: Array<string>, description: string, condition: SubscriptionCondition, conditionReason: SubscriptionConditionReason | null, consecutiveFailures: number, maxInFlight: number, ratePerSecond: number | null, effectiveInFlight: number, retryAfterUntil: string | null, ordering: WebhookOrdering, payload: WebhookPayload, createdAt: string, updatedAt: string, destination:
      | { __typename: 'EventBridgeDestination', type: WebhookDestinationType, eventBusName: string, region: string, endpoint: string | null, sourcePrefix: string }
      | { __typename: 'HttpsDestination', type: WebhookDestinationType, url: string }
      | { __typename: 'KafkaDestination', type: WebhookDestinationType, brokers: Array<string>, topic: string, tls: boolean, sasl: string | null }
      | { __typename: 'NatsDestination', type: WebhookDestinationType, servers: Array<string>, subject: string, tls: boolean }
      | { __typename: 'RabbitMqDestination', type: WebhookDestinationType, url: string, exchange: string, routingKeyPrefix: string }
      | { __typename: 'SqsDestination', type: WebhookDestinationType, queueUrl: string, region: string, fifo: boolean }
    , backlog: { pending: number, inFlight: number, oldestWaitingSince: string | null, waitingFor: WebhookBacklogWait }, health: { attempts24h: number, successRate24h: number | null, lastAttempt: { status: string, httpStatus: number | null, error: string | null, attemptedAt: string, eventType: string } | null, lastFailure: { status: string, httpStatus: number | null, error: string | null, attemptedAt: string, eventType: string } | null }, retrySchedule: { delaysSeconds: Array<number>, maxAttempts: number, spanSeconds: number, custom: boolean } } };

export type DisableWebhookSubscriptionMutationVariables = Exact<{
  id: string;
}>;


export type DisableWebhookSubscriptionMutation = { disableWebhookSubscription: { id: string, url: string, events: Array<string>, boards: Array<string>, fields: Array<string>, description: string, condition: SubscriptionCondition, conditionReason: SubscriptionConditionReason | null, consecutiveFailures: number, maxInFlight: number, ratePerSecond: number | null, effectiveInFlight: number, retryAfterUntil: string | null, ordering: WebhookOrdering, payload: WebhookPayload, createdAt: string, updatedAt: string, destination:
      | { __typename: 'EventBridgeDestination', type: WebhookDestinationType, eventBusName: string, region: string, endpoint: string | null, sourcePrefix: string }
      | { __typename: 'HttpsDestination', type: WebhookDestinationType, url: string }
      | { __typename: 'KafkaDestination', type: WebhookDestinationType, brokers: Array<string>, topic: string, tls: boolean, sasl: string | null }
      | { __typename: 'NatsDestination', type: WebhookDestinationType, servers: Array<string>, subject: string, tls: boolean }
      | { __typename: 'RabbitMqDestination', type: WebhookDestinationType, url: string, exchange: string, routingKeyPrefix: string }
      | { __typename: 'SqsDestination', type: WebhookDestinationType, queueUrl: string, region: string, fifo: boolean }
    , backlog: { pending: number, inFlight: number, oldestWaitingSince: string | null, waitingFor: WebhookBacklogWait }, health: { attempts24h: number, successRate24h: number | null, lastAttempt: { status: string, httpStatus: number | null, error: string | null, attemptedAt: string, eventType: string } | null, lastFailure: { status: string, httpStatus: number | null, error: string | null, attemptedAt: string, eventType: string } | null }, retrySchedule: { delaysSeconds: Array<number>, maxAttempts: number, spanSeconds: number, custom: boolean } } };

export type EnableWebhookSubscriptionMutationVariables = Exact<{
  id: string;
}>;


export type EnableWebhookSubscriptionMutation = { enableWebhookSubscription: { id: string, url: string, events: Array<string>, boards: Array<string>, fields: Array<string>, description: string, condition: SubscriptionCondition, conditionReason: SubscriptionConditionReason | null, consecutiveFailures: number, maxInFlight: number, ratePerSecond: number | null, effectiveInFlight: number, retryAfterUntil: string | null, ordering: WebhookOrdering, payload: WebhookPayload, createdAt: string, updatedAt: string, destination:
      | { __typename: 'EventBridgeDestination', type: WebhookDestinationType, eventBusName: string, region: string, endpoint: string | null, sourcePrefix: string }
      | { __typename: 'HttpsDestination', type: WebhookDestinationType, url: string }
      | { __typename: 'KafkaDestination', type: WebhookDestinationType, brokers: Array<string>, topic: string, tls: boolean, sasl: string | null }
      | { __typename: 'NatsDestination', type: WebhookDestinationType, servers: Array<string>, subject: string, tls: boolean }
      | { __typename: 'RabbitMqDestination', type: WebhookDestinationType, url: string, exchange: string, routingKeyPrefix: string }
      | { __typename: 'SqsDestination', type: WebhookDestinationType, queueUrl: string, region: string, fifo: boolean }
    , backlog: { pending: number, inFlight: number, oldestWaitingSince: string | null, waitingFor: WebhookBacklogWait }, health: { attempts24h: number, successRate24h: number | null, lastAttempt: { status: string, httpStatus: number | null, error: string | null, attemptedAt: string, eventType: string } | null, lastFailure: { status: string, httpStatus: number | null, error: string | null, attemptedAt: string, eventType: string } | null }, retrySchedule: { delaysSeconds: Array<number>, maxAttempts: number, spanSeconds: number, custom: boolean } } };

export type WebhookLimitsQueryVariables = Exact<{ [key: string]: never; }>;


export type WebhookLimitsQuery = { webhookLimits: { minRatePerSecond: number, maxInFlight: number, retryMinDelaySeconds: number, defaultRetryDelaysSeconds: Array<number>, maxRetrySpanSeconds: number } };

export type ResendWebhookDeliveryMutationVariables = Exact<{
  subscriptionId: string;
  deliveryId: string;
}>;


export type ResendWebhookDeliveryMutation = { resendWebhookDelivery: { id: string, deliveryId: string, eventId: string, eventType: string, attempt: number, trigger: string, status: DeliveryStatus, httpStatus: number | null, durationMs: number | null, responseExcerpt: string | null, error: string | null, payload: unknown, attemptedAt: string | null, nextAttemptAt: string | null } };

export type WebhookFailedSinceQueryVariables = Exact<{
  subscriptionId: string;
  since: string;
  after?: string | null | undefined;
}>;


export type WebhookFailedSinceQuery = { webhookDeliveries: { edges: Array<{ node: { deliveryId: string } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type RecoverWebhookDeliveriesMutationVariables = Exact<{
  subscriptionId: string;
  since: string;
}>;


export type RecoverWebhookDeliveriesMutation = { recoverWebhookDeliveries: { id: string, since: string, until: string, status: WebhookRecoveryStatus } };

export type BoardsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type BoardsQuery = { boards: { edges: Array<{ node: { id: string, name: string, fields: Array<{ id: string, name: string }> } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type AuditLogQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  action?: string | null | undefined;
}>;


export type AuditLogQuery = { auditLog: { edges: Array<{ node: { id: string, occurredAt: string, action: string, address: string | null, actor: { type: AuditActorType, id: string | null, label: string }, target: { type: AuditTargetType, id: string }, changes: Array<{ field: string, before: unknown, after: unknown }> } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type AdminBoardFieldsFragment = { id: string, name: string, description: string | null, priorities: Array<string>, archivedAt: string | null, fields: Array<{ id: string, name: string, type: FieldType, required: boolean, options: Array<string> }>, states: Array<{ id: string, name: string, category: StateCategory }> };

export type AdminBoardsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type AdminBoardsQuery = { boards: { edges: Array<{ node: { id: string, name: string, description: string | null, priorities: Array<string>, archivedAt: string | null, fields: Array<{ id: string, name: string, type: FieldType, required: boolean, options: Array<string> }>, states: Array<{ id: string, name: string, category: StateCategory }> } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type CreateBoardMutationVariables = Exact<{
  input: CreateBoardInput;
}>;


export type CreateBoardMutation = { createBoard: { id: string, name: string, description: string | null, priorities: Array<string>, archivedAt: string | null, fields: Array<{ id: string, name: string, type: FieldType, required: boolean, options: Array<string> }>, states: Array<{ id: string, name: string, category: StateCategory }> } };

export type UpdateBoardMutationVariables = Exact<{
  id: string;
  input: UpdateBoardInput;
}>;


export type UpdateBoardMutation = { updateBoard: { id: string, name: string, description: string | null, priorities: Array<string>, archivedAt: string | null, fields: Array<{ id: string, name: string, type: FieldType, required: boolean, options: Array<string> }>, states: Array<{ id: string, name: string, category: StateCategory }> } };

export type ArchiveBoardMutationVariables = Exact<{
  id: string;
}>;


export type ArchiveBoardMutation = { archiveBoard: { id: string, name: string, description: string | null, priorities: Array<string>, archivedAt: string | null, fields: Array<{ id: string, name: string, type: FieldType, required: boolean, options: Array<string> }>, states: Array<{ id: string, name: string, category: StateCategory }> } };

export type UnarchiveBoardMutationVariables = Exact<{
  id: string;
}>;


export type UnarchiveBoardMutation = { unarchiveBoard: { id: string, name: string, description: string | null, priorities: Array<string>, archivedAt: string | null, fields: Array<{ id: string, name: string, type: FieldType, required: boolean, options: Array<string> }>, states: Array<{ id: string, name: string, category: StateCategory }> } };

export type AdminRoleFieldsFragment = { id: number, name: string, isAdmin: boolean, allBoards: boolean, permissions: Array<string>, boardIds: Array<string>, builtIn: boolean };

export type AdminRolesQueryVariables = Exact<{ [key: string]: never; }>;


export type AdminRolesQuery = { roles: Array<{ id: number, name: string, isAdmin: boolean, allBoards: boolean, permissions: Array<string>, boardIds: Array<string>, builtIn: boolean }> };

export type CreateRoleMutationVariables = Exact<{
  input: CreateRoleInput;
}>;


export type CreateRoleMutation = { createRole: { id: number, name: string, isAdmin: boolean, allBoards: boolean, permissions: Array<string>, boardIds: Array<string>, builtIn: boolean } };

export type UpdateRoleMutationVariables = Exact<{
  id: number;
  input: UpdateRoleInput;
}>;


export type UpdateRoleMutation = { updateRole: { id: number, name: string, isAdmin: boolean, allBoards: boolean, permissions: Array<string>, boardIds: Array<string>, builtIn: boolean } };

export type PersonFieldsFragment = { id: number, fullName: string, email: string | null, roleId: number, deactivatedAt: string | null, createdAt: string, role: { id: number, name: string } };

export type PeopleQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type PeopleQuery = { users: { edges: Array<{ node: { id: number, fullName: string, email: string | null, roleId: number, deactivatedAt: string | null, createdAt: string, role: { id: number, name: string } } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type ChangeUserRoleMutationVariables = Exact<{
  id: number;
  input: ChangeUserRoleInput;
}>;


export type ChangeUserRoleMutation = { changeUserRole: { id: number, fullName: string, email: string | null, roleId: number, deactivatedAt: string | null, createdAt: string, role: { id: number, name: string } } };

export type DeactivateUserMutationVariables = Exact<{
  id: number;
}>;


export type DeactivateUserMutation = { deactivateUser: { id: number, fullName: string, email: string | null, roleId: number, deactivatedAt: string | null, createdAt: string, role: { id: number, name: string } } };

export type ReactivateUserMutationVariables = Exact<{
  id: number;
}>;


export type ReactivateUserMutation = { reactivateUser: { id: number, fullName: string, email: string | null, roleId: number, deactivatedAt: string | null, createdAt: string, role: { id: number, name: string } } };

export type InvitationsQueryVariables = Exact<{ [key: string]: never; }>;


export type InvitationsQuery = { invitations: Array<{ id: string, email: string, expiresAt: string, createdAt: string, role: { id: number, name: string } }> };

export type InviteUserMutationVariables = Exact<{
  input: InviteUserInput;
}>;


export type InviteUserMutation = { inviteUser: { link: string | null, emailed: boolean, invitation: { id: string, email: string } } };

export type RevokeInvitationMutationVariables = Exact<{
  id: string;
}>;


export type RevokeInvitationMutation = { revokeInvitation: { id: string, email: string } };

export type InvitationPreviewQueryVariables = Exact<{
  token: string;
}>;


export type InvitationPreviewQuery = { invitation: { email: string, expiresAt: string, role: { name: string }, workspace: { name: string, domain: string } } };

export type AcceptInvitationMutationVariables = Exact<{
  token: string;
  fullName: string;
  password: string;
}>;


export type AcceptInvitationMutation = { acceptInvitation: { email: string, workspace: { domain: string } } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const ViewerFieldsFragmentDoc = new TypedDocumentString(`
    fragment ViewerFields on Viewer {
  id
  fullName
  email
  isAdmin
  csrfToken
  role {
    id
    name
  }
  workspace {
    name
    domain
  }
}
    `, {"fragmentName":"ViewerFields"}) as unknown as TypedDocumentString<ViewerFieldsFragment, unknown>;
export const ApiKeyFieldsFragmentDoc = new TypedDocumentString(`
    fragment ApiKeyFields on ApiKey {
  id
  name
  prefix
  scopes
  role {
    id
    name
  }
  expiresAt
  lastUsedAt
  revokedAt
  createdAt
}
    `, {"fragmentName":"ApiKeyFields"}) as unknown as TypedDocumentString<ApiKeyFieldsFragment, unknown>;
export const HealthAttemptFieldsFragmentDoc = new TypedDocumentString(`
    fragment HealthAttemptFields on WebhookHealthAttempt {
  status
  httpStatus
  error
  attemptedAt
  eventType
}
    `, {"fragmentName":"HealthAttemptFields"}) as unknown as TypedDocumentString<HealthAttemptFieldsFragment, unknown>;
export const SubscriptionFieldsFragmentDoc = new TypedDocumentString(`
    fragment SubscriptionFields on WebhookSubscription {
  id
  url
  events
  boards
  fields
  description
  condition
  conditionReason
  consecutiveFailures
  maxInFlight
  ratePerSecond
  destination {
    __typename
    ... on HttpsDestination {
      type
      url
    }
    ... on SqsDestination {
      type
      queueUrl
      region
      fifo
    }
    ... on EventBridgeDestination {
      type
      eventBusName
      region
      endpoint
      sourcePrefix
    }
    ... on KafkaDestination {
      type
      brokers
      topic
      tls
      sasl
    }
    ... on RabbitMqDestination {
      type
      url
      exchange
      routingKeyPrefix
    }
    ... on NatsDestination {
      type
      servers
      subject
      tls
    }
  }
  effectiveInFlight
  retryAfterUntil
  ordering
  payload
  backlog {
    pending
    inFlight
    oldestWaitingSince
    waitingFor
  }
  health {
    attempts24h
    successRate24h
    lastAttempt {
      ...HealthAttemptFields
    }
    lastFailure {
      ...HealthAttemptFields
    }
  }
  createdAt
  updatedAt
  retrySchedule {
    delaysSeconds
    maxAttempts
    spanSeconds
    custom
  }
}
    fragment HealthAttemptFields on WebhookHealthAttempt {
  status
  httpStatus
  error
  attemptedAt
  eventType
}`, {"fragmentName":"SubscriptionFields"}) as unknown as TypedDocumentString<SubscriptionFieldsFragment, unknown>;
export const AttemptFieldsFragmentDoc = new TypedDocumentString(`
    fragment AttemptFields on WebhookDeliveryAttempt {
  id
  deliveryId
  eventId
  eventType
  attempt
  trigger
  status
  httpStatus
  durationMs
  responseExcerpt
  error
  payload
  attemptedAt
  nextAttemptAt
}
    `, {"fragmentName":"AttemptFields"}) as unknown as TypedDocumentString<AttemptFieldsFragment, unknown>;
export const AdminBoardFieldsFragmentDoc = new TypedDocumentString(`
    fragment AdminBoardFields on Board {
  id
  name
  description
  priorities
  archivedAt
  fields {
    id
    name
    type
    required
    options
  }
  states {
    id
    name
    category
  }
}
    `, {"fragmentName":"AdminBoardFields"}) as unknown as TypedDocumentString<AdminBoardFieldsFragment, unknown>;
export const AdminRoleFieldsFragmentDoc = new TypedDocumentString(`
    fragment AdminRoleFields on Role {
  id
  name
  isAdmin
  allBoards
  permissions
  boardIds
  builtIn
}
    `, {"fragmentName":"AdminRoleFields"}) as unknown as TypedDocumentString<AdminRoleFieldsFragment, unknown>;
export const PersonFieldsFragmentDoc = new TypedDocumentString(`
    fragment PersonFields on User {
  id
  fullName
  email
  roleId
  role {
    id
    name
  }
  deactivatedAt
  createdAt
}
    `, {"fragmentName":"PersonFields"}) as unknown as TypedDocumentString<PersonFieldsFragment, unknown>;
export const ViewerDocument = new TypedDocumentString(`
    query Viewer {
  viewer {
    ...ViewerFields
  }
}
    fragment ViewerFields on Viewer {
  id
  fullName
  email
  isAdmin
  csrfToken
  role {
    id
    name
  }
  workspace {
    name
    domain
  }
}`) as unknown as TypedDocumentString<ViewerQuery, ViewerQueryVariables>;
export const SignInDocument = new TypedDocumentString(`
    mutation SignIn($email: String!, $password: String!, $workspace: String) {
  signIn(email: $email, password: $password, workspace: $workspace) {
    ...ViewerFields
  }
}
    fragment ViewerFields on Viewer {
  id
  fullName
  email
  isAdmin
  csrfToken
  role {
    id
    name
  }
  workspace {
    name
    domain
  }
}`) as unknown as TypedDocumentString<SignInMutation, SignInMutationVariables>;
export const SignOutDocument = new TypedDocumentString(`
    mutation SignOut {
  signOut
}
    `) as unknown as TypedDocumentString<SignOutMutation, SignOutMutationVariables>;
export const RolesDocument = new TypedDocumentString(`
    query Roles {
  roles {
    id
    name
    isAdmin
    permissions
  }
}
    `) as unknown as TypedDocumentString<RolesQuery, RolesQueryVariables>;
export const ApiKeysDocument = new TypedDocumentString(`
    query ApiKeys($first: Int, $after: String) {
  apiKeys(first: $first, after: $after) {
    edges {
      node {
        ...ApiKeyFields
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    fragment ApiKeyFields on ApiKey {
  id
  name
  prefix
  scopes
  role {
    id
    name
  }
  expiresAt
  lastUsedAt
  revokedAt
  createdAt
}`) as unknown as TypedDocumentString<ApiKeysQuery, ApiKeysQueryVariables>;
export const CreateApiKeyDocument = new TypedDocumentString(`
    mutation CreateApiKey($input: CreateApiKeyInput!) {
  createApiKey(input: $input) {
    value
    apiKey {
      ...ApiKeyFields
    }
  }
}
    fragment ApiKeyFields on ApiKey {
  id
  name
  prefix
  scopes
  role {
    id
    name
  }
  expiresAt
  lastUsedAt
  revokedAt
  createdAt
}`) as unknown as TypedDocumentString<CreateApiKeyMutation, CreateApiKeyMutationVariables>;
export const RevokeApiKeyDocument = new TypedDocumentString(`
    mutation RevokeApiKey($id: Int!) {
  revokeApiKey(id: $id)
}
    `) as unknown as TypedDocumentString<RevokeApiKeyMutation, RevokeApiKeyMutationVariables>;
export const NotificationsDocument = new TypedDocumentString(`
    query Notifications($first: Int, $after: String, $unreadOnly: Boolean, $topic: NotificationTopic) {
  notifications(
    first: $first
    after: $after
    unreadOnly: $unreadOnly
    topic: $topic
  ) {
    edges {
      node {
        id
        kind
        title
        body
        link
        read
        createdAt
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<NotificationsQuery, NotificationsQueryVariables>;
export const MarkNotificationReadDocument = new TypedDocumentString(`
    mutation MarkNotificationRead($id: Int!) {
  markNotificationRead(id: $id) {
    id
    read
  }
}
    `) as unknown as TypedDocumentString<MarkNotificationReadMutation, MarkNotificationReadMutationVariables>;
export const UnreadNotificationCountDocument = new TypedDocumentString(`
    query UnreadNotificationCount {
  all: unreadNotificationCount
  webhooks: unreadNotificationCount(topic: webhooks)
  tickets: unreadNotificationCount(topic: tickets)
}
    `) as unknown as TypedDocumentString<UnreadNotificationCountQuery, UnreadNotificationCountQueryVariables>;
export const MarkAllNotificationsReadDocument = new TypedDocumentString(`
    mutation MarkAllNotificationsRead($topic: NotificationTopic, $throughId: Int) {
  markAllNotificationsRead(topic: $topic, throughId: $throughId)
}
    `) as unknown as TypedDocumentString<MarkAllNotificationsReadMutation, MarkAllNotificationsReadMutationVariables>;
export const WebhookSubscriptionsDocument = new TypedDocumentString(`
    query WebhookSubscriptions($first: Int, $after: String) {
  webhookSubscriptions(first: $first, after: $after) {
    edges {
      node {
        ...SubscriptionFields
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    fragment HealthAttemptFields on WebhookHealthAttempt {
  status
  httpStatus
  error
  attemptedAt
  eventType
}
fragment SubscriptionFields on WebhookSubscription {
  id
  url
  events
  boards
  fields
  description
  condition
  conditionReason
  consecutiveFailures
  maxInFlight
  ratePerSecond
  destination {
    __typename
    ... on HttpsDestination {
      type
      url
    }
    ... on SqsDestination {
      type
      queueUrl
      region
      fifo
    }
    ... on EventBridgeDestination {
      type
      eventBusName
      region
      endpoint
      sourcePrefix
    }
    ... on KafkaDestination {
      type
      brokers
      topic
      tls
      sasl
    }
    ... on RabbitMqDestination {
      type
      url
      exchange
      routingKeyPrefix
    }
    ... on NatsDestination {
      type
      servers
      subject
      tls
    }
  }
  effectiveInFlight
  retryAfterUntil
  ordering
  payload
  backlog {
    pending
    inFlight
    oldestWaitingSince
    waitingFor
  }
  health {
    attempts24h
    successRate24h
    lastAttempt {
      ...HealthAttemptFields
    }
    lastFailure {
      ...HealthAttemptFields
    }
  }
  createdAt
  updatedAt
  retrySchedule {
    delaysSeconds
    maxAttempts
    spanSeconds
    custom
  }
}`) as unknown as TypedDocumentString<WebhookSubscriptionsQuery, WebhookSubscriptionsQueryVariables>;
export const WebhookSubscriptionDocument = new TypedDocumentString(`
    query WebhookSubscription($id: String!) {
  webhookSubscription(id: $id) {
    ...SubscriptionFields
    secretRotatedAt
  }
}
    fragment HealthAttemptFields on WebhookHealthAttempt {
  status
  httpStatus
  error
  attemptedAt
  eventType
}
fragment SubscriptionFields on WebhookSubscription {
  id
  url
  events
  boards
  fields
  description
  condition
  conditionReason
  consecutiveFailures
  maxInFlight
  ratePerSecond
  destination {
    __typename
    ... on HttpsDestination {
      type
      url
    }
    ... on SqsDestination {
      type
      queueUrl
      region
      fifo
    }
    ... on EventBridgeDestination {
      type
      eventBusName
      region
      endpoint
      sourcePrefix
    }
    ... on KafkaDestination {
      type
      brokers
      topic
      tls
      sasl
    }
    ... on RabbitMqDestination {
      type
      url
      exchange
      routingKeyPrefix
    }
    ... on NatsDestination {
      type
      servers
      subject
      tls
    }
  }
  effectiveInFlight
  retryAfterUntil
  ordering
  payload
  backlog {
    pending
    inFlight
    oldestWaitingSince
    waitingFor
  }
  health {
    attempts24h
    successRate24h
    lastAttempt {
      ...HealthAttemptFields
    }
    lastFailure {
      ...HealthAttemptFields
    }
  }
  createdAt
  updatedAt
  retrySchedule {
    delaysSeconds
    maxAttempts
    spanSeconds
    custom
  }
}`) as unknown as TypedDocumentString<WebhookSubscriptionQuery, WebhookSubscriptionQueryVariables>;
export const WebhookDeliveriesDocument = new TypedDocumentString(`
    query WebhookDeliveries($subscriptionId: String!, $status: DeliveryStatus, $eventType: String, $eventId: String, $first: Int, $after: String) {
  webhookDeliveries(
    subscriptionId: $subscriptionId
    status: $status
    eventType: $eventType
    eventId: $eventId
    first: $first
    after: $after
  ) {
    edges {
      node {
        ...AttemptFields
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    fragment AttemptFields on WebhookDeliveryAttempt {
  id
  deliveryId
  eventId
  eventType
  attempt
  trigger
  status
  httpStatus
  durationMs
  responseExcerpt
  error
  payload
  attemptedAt
  nextAttemptAt
}`) as unknown as TypedDocumentString<WebhookDeliveriesQuery, WebhookDeliveriesQueryVariables>;
export const WebhookDeliveryStatsDocument = new TypedDocumentString(`
    query WebhookDeliveryStats($subscriptionId: String!, $period: String) {
  webhookDeliveryStats(subscriptionId: $subscriptionId, period: $period) {
    period
    bucket
    from
    to
    attempts
    succeeded
    failed
    successRate
    durationMs {
      p50
      p95
      p99
    }
    series {
      start
      attempts
      succeeded
      failed
    }
  }
}
    `) as unknown as TypedDocumentString<WebhookDeliveryStatsQuery, WebhookDeliveryStatsQueryVariables>;
export const CreateWebhookSubscriptionDocument = new TypedDocumentString(`
    mutation CreateWebhookSubscription($input: CreateWebhookSubscriptionInput!) {
  createWebhookSubscription(input: $input) {
    id
    url
    secret
  }
}
    `) as unknown as TypedDocumentString<CreateWebhookSubscriptionMutation, CreateWebhookSubscriptionMutationVariables>;
export const RotateWebhookSecretDocument = new TypedDocumentString(`
    mutation RotateWebhookSecret($id: String!) {
  rotateWebhookSecret(id: $id) {
    id
    secret
  }
}
    `) as unknown as TypedDocumentString<RotateWebhookSecretMutation, RotateWebhookSecretMutationVariables>;
export const UpdateWebhookSubscriptionDocument = new TypedDocumentString(`
    mutation UpdateWebhookSubscription($id: String!, $input: UpdateWebhookSubscriptionInput!) {
  updateWebhookSubscription(id: $id, input: $input) {
    ...SubscriptionFields
  }
}
    fragment HealthAttemptFields on WebhookHealthAttempt {
  status
  httpStatus
  error
  attemptedAt
  eventType
}
fragment SubscriptionFields on WebhookSubscription {
  id
  url
  events
  boards
  fields
  description
  condition
  conditionReason
  consecutiveFailures
  maxInFlight
  ratePerSecond
  destination {
    __typename
    ... on HttpsDestination {
      type
      url
    }
    ... on SqsDestination {
      type
      queueUrl
      region
      fifo
    }
    ... on EventBridgeDestination {
      type
      eventBusName
      region
      endpoint
      sourcePrefix
    }
    ... on KafkaDestination {
      type
      brokers
      topic
      tls
      sasl
    }
    ... on RabbitMqDestination {
      type
      url
      exchange
      routingKeyPrefix
    }
    ... on NatsDestination {
      type
      servers
      subject
      tls
    }
  }
  effectiveInFlight
  retryAfterUntil
  ordering
  payload
  backlog {
    pending
    inFlight
    oldestWaitingSince
    waitingFor
  }
  health {
    attempts24h
    successRate24h
    lastAttempt {
      ...HealthAttemptFields
    }
    lastFailure {
      ...HealthAttemptFields
    }
  }
  createdAt
  updatedAt
  retrySchedule {
    delaysSeconds
    maxAttempts
    spanSeconds
    custom
  }
}`) as unknown as TypedDocumentString<UpdateWebhookSubscriptionMutation, UpdateWebhookSubscriptionMutationVariables>;
export const DeleteWebhookSubscriptionDocument = new TypedDocumentString(`
    mutation DeleteWebhookSubscription($id: String!) {
  deleteWebhookSubscription(id: $id)
}
    `) as unknown as TypedDocumentString<DeleteWebhookSubscriptionMutation, DeleteWebhookSubscriptionMutationVariables>;
export const SendWebhookTestDocument = new TypedDocumentString(`
    mutation SendWebhookTest($id: String!) {
  sendWebhookTest(id: $id) {
    eventId
    type
  }
}
    `) as unknown as TypedDocumentString<SendWebhookTestMutation, SendWebhookTestMutationVariables>;
export const ResumeWebhookSubscriptionDocument = new TypedDocumentString(`
    mutation ResumeWebhookSubscription($id: String!) {
  resumeWebhookSubscription(id: $id) {
    ...SubscriptionFields
  }
}
    fragment HealthAttemptFields on WebhookHealthAttempt {
  status
  httpStatus
  error
  attemptedAt
  eventType
}
fragment SubscriptionFields on WebhookSubscription {
  id
  url
  events
  boards
  fields
  description
  condition
  conditionReason
  consecutiveFailures
  maxInFlight
  ratePerSecond
  destination {
    __typename
    ... on HttpsDestination {
      type
      url
    }
    ... on SqsDestination {
      type
      queueUrl
      region
      fifo
    }
    ... on EventBridgeDestination {
      type
      eventBusName
      region
      endpoint
      sourcePrefix
    }
    ... on KafkaDestination {
      type
      brokers
      topic
      tls
      sasl
    }
    ... on RabbitMqDestination {
      type
      url
      exchange
      routingKeyPrefix
    }
    ... on NatsDestination {
      type
      servers
      subject
      tls
    }
  }
  effectiveInFlight
  retryAfterUntil
  ordering
  payload
  backlog {
    pending
    inFlight
    oldestWaitingSince
    waitingFor
  }
  health {
    attempts24h
    successRate24h
    lastAttempt {
      ...HealthAttemptFields
    }
    lastFailure {
      ...HealthAttemptFields
    }
  }
  createdAt
  updatedAt
  retrySchedule {
    delaysSeconds
    maxAttempts
    spanSeconds
    custom
  }
}`) as unknown as TypedDocumentString<ResumeWebhookSubscriptionMutation, ResumeWebhookSubscriptionMutationVariables>;
export const PauseWebhookSubscriptionDocument = new TypedDocumentString(`
    mutation PauseWebhookSubscription($id: String!) {
  pauseWebhookSubscription(id: $id) {
    ...SubscriptionFields
  }
}
    fragment HealthAttemptFields on WebhookHealthAttempt {
  status
  httpStatus
  error
  attemptedAt
  eventType
}
fragment SubscriptionFields on WebhookSubscription {
  id
  url
  events
  boards
  fields
  description
  condition
  conditionReason
  consecutiveFailures
  maxInFlight
  ratePerSecond
  destination {
    __typename
    ... on HttpsDestination {
      type
      url
    }
    ... on SqsDestination {
      type
      queueUrl
      region
      fifo
    }
    ... on EventBridgeDestination {
      type
      eventBusName
      region
      endpoint
      sourcePrefix
    }
    ... on KafkaDestination {
      type
      brokers
      topic
      tls
      sasl
    }
    ... on RabbitMqDestination {
      type
      url
      exchange
      routingKeyPrefix
    }
    ... on NatsDestination {
      type
      servers
      subject
      tls
    }
  }
  effectiveInFlight
  retryAfterUntil
  ordering
  payload
  backlog {
    pending
    inFlight
    oldestWaitingSince
    waitingFor
  }
  health {
    attempts24h
    successRate24h
    lastAttempt {
      ...HealthAttemptFields
    }
    lastFailure {
      ...HealthAttemptFields
    }
  }
  createdAt
  updatedAt
  retrySchedule {
    delaysSeconds
    maxAttempts
    spanSeconds
    custom
  }
}`) as unknown as TypedDocumentString<PauseWebhookSubscriptionMutation, PauseWebhookSubscriptionMutationVariables>;
export const DisableWebhookSubscriptionDocument = new TypedDocumentString(`
    mutation DisableWebhookSubscription($id: String!) {
  disableWebhookSubscription(id: $id) {
    ...SubscriptionFields
  }
}
    fragment HealthAttemptFields on WebhookHealthAttempt {
  status
  httpStatus
  error
  attemptedAt
  eventType
}
fragment SubscriptionFields on WebhookSubscription {
  id
  url
  events
  boards
  fields
  description
  condition
  conditionReason
  consecutiveFailures
  maxInFlight
  ratePerSecond
  destination {
    __typename
    ... on HttpsDestination {
      type
      url
    }
    ... on SqsDestination {
      type
      queueUrl
      region
      fifo
    }
    ... on EventBridgeDestination {
      type
      eventBusName
      region
      endpoint
      sourcePrefix
    }
    ... on KafkaDestination {
      type
      brokers
      topic
      tls
      sasl
    }
    ... on RabbitMqDestination {
      type
      url
      exchange
      routingKeyPrefix
    }
    ... on NatsDestination {
      type
      servers
      subject
      tls
    }
  }
  effectiveInFlight
  retryAfterUntil
  ordering
  payload
  backlog {
    pending
    inFlight
    oldestWaitingSince
    waitingFor
  }
  health {
    attempts24h
    successRate24h
    lastAttempt {
      ...HealthAttemptFields
    }
    lastFailure {
      ...HealthAttemptFields
    }
  }
  createdAt
  updatedAt
  retrySchedule {
    delaysSeconds
    maxAttempts
    spanSeconds
    custom
  }
}`) as unknown as TypedDocumentString<DisableWebhookSubscriptionMutation, DisableWebhookSubscriptionMutationVariables>;
export const EnableWebhookSubscriptionDocument = new TypedDocumentString(`
    mutation EnableWebhookSubscription($id: String!) {
  enableWebhookSubscription(id: $id) {
    ...SubscriptionFields
  }
}
    fragment HealthAttemptFields on WebhookHealthAttempt {
  status
  httpStatus
  error
  attemptedAt
  eventType
}
fragment SubscriptionFields on WebhookSubscription {
  id
  url
  events
  boards
  fields
  description
  condition
  conditionReason
  consecutiveFailures
  maxInFlight
  ratePerSecond
  destination {
    __typename
    ... on HttpsDestination {
      type
      url
    }
    ... on SqsDestination {
      type
      queueUrl
      region
      fifo
    }
    ... on EventBridgeDestination {
      type
      eventBusName
      region
      endpoint
      sourcePrefix
    }
    ... on KafkaDestination {
      type
      brokers
      topic
      tls
      sasl
    }
    ... on RabbitMqDestination {
      type
      url
      exchange
      routingKeyPrefix
    }
    ... on NatsDestination {
      type
      servers
      subject
      tls
    }
  }
  effectiveInFlight
  retryAfterUntil
  ordering
  payload
  backlog {
    pending
    inFlight
    oldestWaitingSince
    waitingFor
  }
  health {
    attempts24h
    successRate24h
    lastAttempt {
      ...HealthAttemptFields
    }
    lastFailure {
      ...HealthAttemptFields
    }
  }
  createdAt
  updatedAt
  retrySchedule {
    delaysSeconds
    maxAttempts
    spanSeconds
    custom
  }
}`) as unknown as TypedDocumentString<EnableWebhookSubscriptionMutation, EnableWebhookSubscriptionMutationVariables>;
export const WebhookLimitsDocument = new TypedDocumentString(`
    query WebhookLimits {
  webhookLimits {
    minRatePerSecond
    maxInFlight
    retryMinDelaySeconds
    defaultRetryDelaysSeconds
    maxRetrySpanSeconds
  }
}
    `) as unknown as TypedDocumentString<WebhookLimitsQuery, WebhookLimitsQueryVariables>;
export const ResendWebhookDeliveryDocument = new TypedDocumentString(`
    mutation ResendWebhookDelivery($subscriptionId: String!, $deliveryId: String!) {
  resendWebhookDelivery(subscriptionId: $subscriptionId, deliveryId: $deliveryId) {
    ...AttemptFields
  }
}
    fragment AttemptFields on WebhookDeliveryAttempt {
  id
  deliveryId
  eventId
  eventType
  attempt
  trigger
  status
  httpStatus
  durationMs
  responseExcerpt
  error
  payload
  attemptedAt
  nextAttemptAt
}`) as unknown as TypedDocumentString<ResendWebhookDeliveryMutation, ResendWebhookDeliveryMutationVariables>;
export const WebhookFailedSinceDocument = new TypedDocumentString(`
    query WebhookFailedSince($subscriptionId: String!, $since: DateTime!, $after: String) {
  webhookDeliveries(
    subscriptionId: $subscriptionId
    status: failed
    since: $since
    first: 100
    after: $after
  ) {
    edges {
      node {
        deliveryId
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<WebhookFailedSinceQuery, WebhookFailedSinceQueryVariables>;
export const RecoverWebhookDeliveriesDocument = new TypedDocumentString(`
    mutation RecoverWebhookDeliveries($subscriptionId: String!, $since: DateTime!) {
  recoverWebhookDeliveries(subscriptionId: $subscriptionId, since: $since) {
    id
    since
    until
    status
  }
}
    `) as unknown as TypedDocumentString<RecoverWebhookDeliveriesMutation, RecoverWebhookDeliveriesMutationVariables>;
export const BoardsDocument = new TypedDocumentString(`
    query Boards($first: Int, $after: String) {
  boards(first: $first, after: $after) {
    edges {
      node {
        id
        name
        fields {
          id
          name
        }
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<BoardsQuery, BoardsQueryVariables>;
export const AuditLogDocument = new TypedDocumentString(`
    query AuditLog($first: Int, $after: String, $action: String) {
  auditLog(first: $first, after: $after, action: $action) {
    edges {
      node {
        id
        occurredAt
        action
        actor {
          type
          id
          label
        }
        address
        target {
          type
          id
        }
        changes {
          field
          before
          after
        }
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<AuditLogQuery, AuditLogQueryVariables>;
export const AdminBoardsDocument = new TypedDocumentString(`
    query AdminBoards($first: Int, $after: String) {
  boards(first: $first, after: $after) {
    edges {
      node {
        ...AdminBoardFields
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    fragment AdminBoardFields on Board {
  id
  name
  description
  priorities
  archivedAt
  fields {
    id
    name
    type
    required
    options
  }
  states {
    id
    name
    category
  }
}`) as unknown as TypedDocumentString<AdminBoardsQuery, AdminBoardsQueryVariables>;
export const CreateBoardDocument = new TypedDocumentString(`
    mutation CreateBoard($input: CreateBoardInput!) {
  createBoard(input: $input) {
    ...AdminBoardFields
  }
}
    fragment AdminBoardFields on Board {
  id
  name
  description
  priorities
  archivedAt
  fields {
    id
    name
    type
    required
    options
  }
  states {
    id
    name
    category
  }
}`) as unknown as TypedDocumentString<CreateBoardMutation, CreateBoardMutationVariables>;
export const UpdateBoardDocument = new TypedDocumentString(`
    mutation UpdateBoard($id: String!, $input: UpdateBoardInput!) {
  updateBoard(id: $id, input: $input) {
    ...AdminBoardFields
  }
}
    fragment AdminBoardFields on Board {
  id
  name
  description
  priorities
  archivedAt
  fields {
    id
    name
    type
    required
    options
  }
  states {
    id
    name
    category
  }
}`) as unknown as TypedDocumentString<UpdateBoardMutation, UpdateBoardMutationVariables>;
export const ArchiveBoardDocument = new TypedDocumentString(`
    mutation ArchiveBoard($id: String!) {
  archiveBoard(id: $id) {
    ...AdminBoardFields
  }
}
    fragment AdminBoardFields on Board {
  id
  name
  description
  priorities
  archivedAt
  fields {
    id
    name
    type
    required
    options
  }
  states {
    id
    name
    category
  }
}`) as unknown as TypedDocumentString<ArchiveBoardMutation, ArchiveBoardMutationVariables>;
export const UnarchiveBoardDocument = new TypedDocumentString(`
    mutation UnarchiveBoard($id: String!) {
  unarchiveBoard(id: $id) {
    ...AdminBoardFields
  }
}
    fragment AdminBoardFields on Board {
  id
  name
  description
  priorities
  archivedAt
  fields {
    id
    name
    type
    required
    options
  }
  states {
    id
    name
    category
  }
}`) as unknown as TypedDocumentString<UnarchiveBoardMutation, UnarchiveBoardMutationVariables>;
export const AdminRolesDocument = new TypedDocumentString(`
    query AdminRoles {
  roles {
    ...AdminRoleFields
  }
}
    fragment AdminRoleFields on Role {
  id
  name
  isAdmin
  allBoards
  permissions
  boardIds
  builtIn
}`) as unknown as TypedDocumentString<AdminRolesQuery, AdminRolesQueryVariables>;
export const CreateRoleDocument = new TypedDocumentString(`
    mutation CreateRole($input: CreateRoleInput!) {
  createRole(input: $input) {
    ...AdminRoleFields
  }
}
    fragment AdminRoleFields on Role {
  id
  name
  isAdmin
  allBoards
  permissions
  boardIds
  builtIn
}`) as unknown as TypedDocumentString<CreateRoleMutation, CreateRoleMutationVariables>;
export const UpdateRoleDocument = new TypedDocumentString(`
    mutation UpdateRole($id: Int!, $input: UpdateRoleInput!) {
  updateRole(id: $id, input: $input) {
    ...AdminRoleFields
  }
}
    fragment AdminRoleFields on Role {
  id
  name
  isAdmin
  allBoards
  permissions
  boardIds
  builtIn
}`) as unknown as TypedDocumentString<UpdateRoleMutation, UpdateRoleMutationVariables>;
export const PeopleDocument = new TypedDocumentString(`
    query People($first: Int, $after: String) {
  users(first: $first, after: $after, kind: human) {
    edges {
      node {
        ...PersonFields
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    fragment PersonFields on User {
  id
  fullName
  email
  roleId
  role {
    id
    name
  }
  deactivatedAt
  createdAt
}`) as unknown as TypedDocumentString<PeopleQuery, PeopleQueryVariables>;
export const ChangeUserRoleDocument = new TypedDocumentString(`
    mutation ChangeUserRole($id: Int!, $input: ChangeUserRoleInput!) {
  changeUserRole(id: $id, input: $input) {
    ...PersonFields
  }
}
    fragment PersonFields on User {
  id
  fullName
  email
  roleId
  role {
    id
    name
  }
  deactivatedAt
  createdAt
}`) as unknown as TypedDocumentString<ChangeUserRoleMutation, ChangeUserRoleMutationVariables>;
export const DeactivateUserDocument = new TypedDocumentString(`
    mutation DeactivateUser($id: Int!) {
  deactivateUser(id: $id) {
    ...PersonFields
  }
}
    fragment PersonFields on User {
  id
  fullName
  email
  roleId
  role {
    id
    name
  }
  deactivatedAt
  createdAt
}`) as unknown as TypedDocumentString<DeactivateUserMutation, DeactivateUserMutationVariables>;
export const ReactivateUserDocument = new TypedDocumentString(`
    mutation ReactivateUser($id: Int!) {
  reactivateUser(id: $id) {
    ...PersonFields
  }
}
    fragment PersonFields on User {
  id
  fullName
  email
  roleId
  role {
    id
    name
  }
  deactivatedAt
  createdAt
}`) as unknown as TypedDocumentString<ReactivateUserMutation, ReactivateUserMutationVariables>;
export const InvitationsDocument = new TypedDocumentString(`
    query Invitations {
  invitations {
    id
    email
    role {
      id
      name
    }
    expiresAt
    createdAt
  }
}
    `) as unknown as TypedDocumentString<InvitationsQuery, InvitationsQueryVariables>;
export const InviteUserDocument = new TypedDocumentString(`
    mutation InviteUser($input: InviteUserInput!) {
  inviteUser(input: $input) {
    link
    emailed
    invitation {
      id
      email
    }
  }
}
    `) as unknown as TypedDocumentString<InviteUserMutation, InviteUserMutationVariables>;
export const RevokeInvitationDocument = new TypedDocumentString(`
    mutation RevokeInvitation($id: String!) {
  revokeInvitation(id: $id) {
    id
    email
  }
}
    `) as unknown as TypedDocumentString<RevokeInvitationMutation, RevokeInvitationMutationVariables>;
export const InvitationPreviewDocument = new TypedDocumentString(`
    query InvitationPreview($token: String!) {
  invitation(token: $token) {
    email
    role {
      name
    }
    workspace {
      name
      domain
    }
    expiresAt
  }
}
    `) as unknown as TypedDocumentString<InvitationPreviewQuery, InvitationPreviewQueryVariables>;
export const AcceptInvitationDocument = new TypedDocumentString(`
    mutation AcceptInvitation($token: String!, $fullName: String!, $password: String!) {
  acceptInvitation(token: $token, fullName: $fullName, password: $password) {
    email
    workspace {
      domain
    }
  }
}
    `) as unknown as TypedDocumentString<AcceptInvitationMutation, AcceptInvitationMutationVariables>;