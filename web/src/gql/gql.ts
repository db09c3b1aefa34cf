/* eslint-disable */
import * as types from './graphql.ts';



/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  fragment ViewerFields on Viewer {\n    id\n    fullName\n    email\n    isAdmin\n    csrfToken\n    role { id name }\n    workspace { name domain }\n  }\n": typeof types.ViewerFieldsFragmentDoc,
    "query Viewer { viewer { ...ViewerFields } }": typeof types.ViewerDocument,
    "\n  mutation SignIn($email: String!, $password: String!, $workspace: String) {\n    signIn(email: $email, password: $password, workspace: $workspace) { ...ViewerFields }\n  }\n": typeof types.SignInDocument,
    "mutation SignOut { signOut }": typeof types.SignOutDocument,
    "query Roles { roles { id name isAdmin permissions } }": typeof types.RolesDocument,
    "\n  fragment ApiKeyFields on ApiKey { id name prefix scopes role { id name } expiresAt lastUsedAt revokedAt createdAt }\n": typeof types.ApiKeyFieldsFragmentDoc,
    "\n  query ApiKeys($first: Int, $after: String) {\n    apiKeys(first: $first, after: $after) { edges { node { ...ApiKeyFields } } pageInfo { hasNextPage endCursor } }\n  }\n": typeof types.ApiKeysDocument,
    "\n  mutation CreateApiKey($input: CreateApiKeyInput!) { createApiKey(input: $input) { value apiKey { ...ApiKeyFields } } }\n": typeof types.CreateApiKeyDocument,
    "mutation RevokeApiKey($id: Int!) { revokeApiKey(id: $id) }": typeof types.RevokeApiKeyDocument,
    "\n  query Notifications($first: Int, $after: String, $unreadOnly: Boolean, $topic: NotificationTopic) {\n    notifications(first: $first, after: $after, unreadOnly: $unreadOnly, topic: $topic) {\n      edges { node { id kind title body link read createdAt } } pageInfo { hasNextPage endCursor }\n    }\n  }\n": typeof types.NotificationsDocument,
    "mutation MarkNotificationRead($id: Int!) { markNotificationRead(id: $id) { id read } }": typeof types.MarkNotificationReadDocument,
    "\n  query UnreadNotificationCount {\n    all: unreadNotificationCount webhooks: unreadNotificationCount(topic: webhooks) tickets: unreadNotificationCount(topic: tickets)\n  }\n": typeof types.UnreadNotificationCountDocument,
    "\n  mutation MarkAllNotificationsRead($topic: NotificationTopic, $throughId: Int) {\n    markAllNotificationsRead(topic: $topic, throughId: $throughId)\n  }\n": typeof types.MarkAllNotificationsReadDocument,
    "\n  fragment HealthAttemptFields on WebhookHealthAttempt { status httpStatus error attemptedAt eventType }\n": typeof types.HealthAttemptFieldsFragmentDoc,
    "\n  fragment SubscriptionFields on WebhookSubscription {\n    id url events boards fields description condition conditionReason consecutiveFailures maxInFlight ratePerSecond\n    destination {\n      __typename\n      ... on HttpsDestination { type url }\n      ... on SqsDestination { type queueUrl region fifo }\n      ... on EventBridgeDestination { type eventBusName region endpoint sourcePrefix }\n      ... on KafkaDestination { type brokers topic tls sasl }\n      ... on RabbitMqDestination { type url exchange routingKeyPrefix }\n      ... on NatsDestination { type servers subject tls }\n    }\n    effectiveInFlight retryAfterUntil ordering\n    payload\n    backlog { pending inFlight oldestWaitingSince waitingFor }\n    health { attempts24h successRate24h lastAttempt { ...HealthAttemptFields } lastFailure { ...HealthAttemptFields } }\n    createdAt updatedAt\n    retrySchedule { delaysSeconds maxAttempts spanSeconds custom }\n  }\n": typeof types.SubscriptionFieldsFragmentDoc,
    "\n  query WebhookSubscriptions($first: Int, $after: String) {\n    webhookSubscriptions(first: $first, after: $after) { edges { node { ...SubscriptionFields } } pageInfo { hasNextPage endCursor } }\n  }\n": typeof types.WebhookSubscriptionsDocument,
    "\n  query WebhookSubscription($id: String!) { webhookSubscription(id: $id) { ...SubscriptionFields secretRotatedAt } }\n": typeof types.WebhookSubscriptionDocument,
    "\n  fragment AttemptFields on WebhookDeliveryAttempt {\n    id deliveryId eventId eventType attempt trigger status httpStatus durationMs responseExcerpt error payload attemptedAt nextAttemptAt\n  }\n": typeof types.AttemptFieldsFragmentDoc,
    "\n  query WebhookDeliveries($subscriptionId: String!, $status: DeliveryStatus, $eventType: String, $eventId: String, $first: Int, $after: String) {\n    webhookDeliveries(subscriptionId: $subscriptionId, status: $status, eventType: $eventType, eventId: $eventId, first: $first, after: $after) {\n      edges { node { ...AttemptFields } } pageInfo { hasNextPage endCursor }\n    }\n  }\n": typeof types.WebhookDeliveriesDocument,
    "\n  query WebhookDeliveryStats($subscriptionId: String!, $period: String) {\n    webhookDeliveryStats(subscriptionId: $subscriptionId, period: $period) {\n      period bucket from to attempts succeeded failed successRate durationMs { p50 p95 p99 } series { start attempts succeeded failed }\n    }\n  }\n": typeof types.WebhookDeliveryStatsDocument,
    "\n  mutation CreateWebhookSubscription($input: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $input) { id url secret } }\n": typeof types.CreateWebhookSubscriptionDocument,
    "mutation RotateWebhookSecret($id: String!) { rotateWebhookSecret(id: $id) { id secret } }": typeof types.RotateWebhookSecretDocument,
    "\n  mutation UpdateWebhookSubscription($id: String!, $input: UpdateWebhookSubscriptionInput!) {\n    updateWebhookSubscription(id: $id, input: $input) { ...SubscriptionFields }\n  }\n": typeof types.UpdateWebhookSubscriptionDocument,
    "mutation DeleteWebhookSubscription($id: String!) { deleteWebhookSubscription(id: $id) }": typeof types.DeleteWebhookSubscriptionDocument,
    "mutation SendWebhookTest($id: String!) { sendWebhookTest(id: $id) { eventId type } }": typeof types.SendWebhookTestDocument,
    "\n  mutation ResumeWebhookSubscription($id: String!) { resumeWebhookSubscription(id: $id) { ...SubscriptionFields } }\n": typeof types.ResumeWebhookSubscriptionDocument,
    "\n  mutation PauseWebhookSubscription($id: String!) { pauseWebhookSubscription(id: $id) { ...SubscriptionFields } }\n": typeof types.PauseWebhookSubscriptionDocument,
    "\n  mutation DisableWebhookSubscription($id: String!) { disableWebhookSubscription(id: $id) { ...SubscriptionFields } }\n": typeof types.DisableWebhookSubscriptionDocument,
    "\n  mutation EnableWebhookSubscription($id: String!) { enableWebhookSubscription(id: $id) { ...SubscriptionFields } }\n": typeof types.EnableWebhookSubscriptionDocument,
    "query WebhookLimits { webhookLimits { minRatePerSecond maxInFlight retryMinDelaySeconds defaultRetryDelaysSeconds maxRetrySpanSeconds } }": typeof types.WebhookLimitsDocument,
    "\n  mutation ResendWebhookDelivery($subscriptionId: String!, $deliveryId: String!) {\n    resendWebhookDelivery(subscriptionId: $subscriptionId, deliveryId: $deliveryId) { ...AttemptFields }\n  }\n": typeof types.ResendWebhookDeliveryDocument,
    "\n  query WebhookFailedSince($subscriptionId: String!, $since: DateTime!, $after: String) {\n    webhookDeliveries(subscriptionId: $subscriptionId, status: failed, since: $since, first: 100, after: $after) {\n      edges { node { deliveryId } } pageInfo { hasNextPage endCursor }\n    }\n  }\n": typeof types.WebhookFailedSinceDocument,
    "\n  mutation RecoverWebhookDeliveries($subscriptionId: String!, $since: DateTime!) {\n    recoverWebhookDeliveries(subscriptionId: $subscriptionId, since: $since) { id since until status }\n  }\n": typeof types.RecoverWebhookDeliveriesDocument,
    "\n  query Boards($first: Int, $after: String) {\n    boards(first: $first, after: $after) { edges { node { id name fields { id name } } } pageInfo { hasNextPage endCursor } }\n  }\n": typeof types.BoardsDocument,
    "\n  query AuditLog($first: Int, $after: String, $action: String) {\n    auditLog(first: $first, after: $after, action: $action) {\n      edges { node { id occurredAt action actor { type id label } address target { type id } changes { field before after } } }\n      pageInfo { hasNextPage endCursor }\n    }\n  }\n": typeof types.AuditLogDocument,
    "\n  fragment AdminBoardFields on Board {\n    id name description priorities archivedAt\n    fields { id name type required options }\n    states { id name category }\n  }\n": typeof types.AdminBoardFieldsFragmentDoc,
    "\n  query AdminBoards($first: Int, $after: String) {\n    boards(first: $first, after: $after) { edges { node { ...AdminBoardFields } } pageInfo { hasNextPage endCursor } }\n  }\n": typeof types.AdminBoardsDocument,
    "mutation CreateBoard($input: CreateBoardInput!) { createBoard(input: $input) { ...AdminBoardFields } }": typeof types.CreateBoardDocument,
    "mutation UpdateBoard($id: String!, $input: UpdateBoardInput!) { updateBoard(id: $id, input: $input) { ...AdminBoardFields } }": typeof types.UpdateBoardDocument,
    "mutation ArchiveBoard($id: String!) { archiveBoard(id: $id) { ...AdminBoardFields } }": typeof types.ArchiveBoardDocument,
    "mutation UnarchiveBoard($id: String!) { unarchiveBoard(id: $id) { ...AdminBoardFields } }": typeof types.UnarchiveBoardDocument,
    "fragment AdminRoleFields on Role { id name isAdmin allBoards permissions boardIds builtIn }": typeof types.AdminRoleFieldsFragmentDoc,
    "query AdminRoles { roles { ...AdminRoleFields } }": typeof types.AdminRolesDocument,
    "mutation CreateRole($input: CreateRoleInput!) { createRole(input: $input) { ...AdminRoleFields } }": typeof types.CreateRoleDocument,
    "mutation UpdateRole($id: Int!, $input: UpdateRoleInput!) { updateRole(id: $id, input: $input) { ...AdminRoleFields } }": typeof types.UpdateRoleDocument,
    "fragment PersonFields on User { id fullName email roleId role { id name } deactivatedAt createdAt }": typeof types.PersonFieldsFragmentDoc,
    "\n  query People($first: Int, $after: String) {\n    users(first: $first, after: $after, kind: human) { edges { node { ...PersonFields } } pageInfo { hasNextPage endCursor } }\n  }\n": typeof types.PeopleDocument,
    "mutation ChangeUserRole($id: Int!, $input: ChangeUserRoleInput!) { changeUserRole(id: $id, input: $input) { ...PersonFields } }": typeof types.ChangeUserRoleDocument,
    "mutation DeactivateUser($id: Int!) { deactivateUser(id: $id) { ...PersonFields } }": typeof types.DeactivateUserDocument,
    "mutation ReactivateUser($id: Int!) { reactivateUser(id: $id) { ...PersonFields } }": typeof types.ReactivateUserDocument,
    "query Invitations { invitations { id email role { id name } expiresAt createdAt } }": typeof types.InvitationsDocument,
    "mutation InviteUser($input: InviteUserInput!) { inviteUser(input: $input) { link emailed invitation { id email } } }": typeof types.InviteUserDocument,
    "mutation RevokeInvitation($id: String!) { revokeInvitation(id: $id) { id email } }": typeof types.RevokeInvitationDocument,
    "query InvitationPreview($token: String!) { invitation(token: $token) { email role { name } workspace { name domain } expiresAt } }": typeof types.InvitationPreviewDocument,
    "\n  mutation AcceptInvitation($token: String!, $fullName: String!, $password: String!) {\n    acceptInvitation(token: $token, fullName: $fullName, password: $password) { email workspace { domain } }\n  }\n": typeof types.AcceptInvitationDocument,
};
const documents: Documents = {
    "\n  fragment ViewerFields on Viewer {\n    id\n    fullName\n    email\n    isAdmin\n    csrfToken\n    role { id name }\n    workspace { name domain }\n  }\n": types.ViewerFieldsFragmentDoc,
    "query Viewer { viewer { ...ViewerFields } }": types.ViewerDocument,
    "\n  mutation SignIn($email: String!, $password: String!, $workspace: String) {\n    signIn(email: $email, password: $password, workspace: $workspace) { ...ViewerFields }\n  }\n": types.SignInDocument,
    "mutation SignOut { signOut }": types.SignOutDocument,
    "query Roles { roles { id name isAdmin permissions } }": types.RolesDocument,
    "\n  fragment ApiKeyFields on ApiKey { id name prefix scopes role { id name } expiresAt lastUsedAt revokedAt createdAt }\n": types.ApiKeyFieldsFragmentDoc,
    "\n  query ApiKeys($first: Int, $after: String) {\n    apiKeys(first: $first, after: $after) { edges { node { ...ApiKeyFields } } pageInfo { hasNextPage endCursor } }\n  }\n": types.ApiKeysDocument,
    "\n  mutation CreateApiKey($input: CreateApiKeyInput!) { createApiKey(input: $input) { value apiKey { ...ApiKeyFields } } }\n": types.CreateApiKeyDocument,
    "mutation RevokeApiKey($id: Int!) { revokeApiKey(id: $id) }": types.RevokeApiKeyDocument,
    "\n  query Notifications($first: Int, $after: String, $unreadOnly: Boolean, $topic: NotificationTopic) {\n    notifications(first: $first, after: $after, unreadOnly: $unreadOnly, topic: $topic) {\n      edges { node { id kind title body link read createdAt } } pageInfo { hasNextPage endCursor }\n    }\n  }\n": types.NotificationsDocument,
    "mutation MarkNotificationRead($id: Int!) { markNotificationRead(id: $id) { id read } }": types.MarkNotificationReadDocument,
    "\n  query UnreadNotificationCount {\n    all: unreadNotificationCount webhooks: unreadNotificationCount(topic: webhooks) tickets: unreadNotificationCount(topic: tickets)\n  }\n": types.UnreadNotificationCountDocument,
    "\n  mutation MarkAllNotificationsRead($topic: NotificationTopic, $throughId: Int) {\n    markAllNotificationsRead(topic: $topic, throughId: $throughId)\n  }\n": types.MarkAllNotificationsReadDocument,
    "\n  fragment HealthAttemptFields on WebhookHealthAttempt { status httpStatus error attemptedAt eventType }\n": types.HealthAttemptFieldsFragmentDoc,
    "\n  fragment SubscriptionFields on WebhookSubscription {\n    id url events boards fields description condition conditionReason consecutiveFailures maxInFlight ratePerSecond\n    destination {\n      __typename\n      ... on HttpsDestination { type url }\n      ... on SqsDestination { type queueUrl region fifo }\n      ... on EventBridgeDestination { type eventBusName region endpoint sourcePrefix }\n      ... on KafkaDestination { type brokers topic tls sasl }\n      ... on RabbitMqDestination { type url exchange routingKeyPrefix }\n      ... on NatsDestination { type servers subject tls }\n    }\n    effectiveInFlight retryAfterUntil ordering\n    payload\n    backlog { pending inFlight oldestWaitingSince waitingFor }\n    health { attempts24h successRate24h lastAttempt { ...HealthAttemptFields } lastFailure { ...HealthAttemptFields } }\n    createdAt updatedAt\n    retrySchedule { delaysSeconds maxAttempts spanSeconds custom }\n  }\n": types.SubscriptionFieldsFragmentDoc,
    "\n  query WebhookSubscriptions($first: Int, $after: String) {\n    webhookSubscriptions(first: $first, after: $after) { edges { node { ...SubscriptionFields } } pageInfo { hasNextPage endCursor } }\n  }\n": types.WebhookSubscriptionsDocument,
    "\n  query WebhookSubscription($id: String!) { webhookSubscription(id: $id) { ...SubscriptionFields secretRotatedAt } }\n": types.WebhookSubscriptionDocument,
    "\n  fragment AttemptFields on WebhookDeliveryAttempt {\n    id deliveryId eventId eventType attempt trigger status httpStatus durationMs responseExcerpt error payload attemptedAt nextAttemptAt\n  }\n": types.AttemptFieldsFragmentDoc,
    "\n  query WebhookDeliveries($subscriptionId: String!, $status: DeliveryStatus, $eventType: String, $eventId: String, $first: Int, $after: String) {\n    webhookDeliveries(subscriptionId: $subscriptionId, status: $status, eventType: $eventType, eventId: $eventId, first: $first, after: $after) {\n      edges { node { ...AttemptFields } } pageInfo { hasNextPage endCursor }\n    }\n  }\n": types.WebhookDeliveriesDocument,
    "\n  query WebhookDeliveryStats($subscriptionId: String!, $period: String) {\n    webhookDeliveryStats(subscriptionId: $subscriptionId, period: $period) {\n      period bucket from to attempts succeeded failed successRate durationMs { p50 p95 p99 } series { start attempts succeeded failed }\n    }\n  }\n": types.WebhookDeliveryStatsDocument,
    "\n  mutation CreateWebhookSubscription($input: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $input) { id url secret } }\n": types.CreateWebhookSubscriptionDocument,
    "mutation RotateWebhookSecret($id: String!) { rotateWebhookSecret(id: $id) { id secret } }": types.RotateWebhookSecretDocument,
    "\n  mutation UpdateWebhookSubscription($id: String!, $input: UpdateWebhookSubscriptionInput!) {\n    updateWebhookSubscription(id: $id, input: $input) { ...SubscriptionFields }\n  }\n": types.UpdateWebhookSubscriptionDocument,
    "mutation DeleteWebhookSubscription($id: String!) { deleteWebhookSubscription(id: $id) }": types.DeleteWebhookSubscriptionDocument,
    "mutation SendWebhookTest($id: String!) { sendWebhookTest(id: $id) { eventId type } }": types.SendWebhookTestDocument,
    "\n  mutation ResumeWebhookSubscription($id: String!) { resumeWebhookSubscription(id: $id) { ...SubscriptionFields } }\n": types.ResumeWebhookSubscriptionDocument,
    "\n  mutation PauseWebhookSubscription($id: String!) { pauseWebhookSubscription(id: $id) { ...SubscriptionFields } }\n": types.PauseWebhookSubscriptionDocument,
    "\n  mutation DisableWebhookSubscription($id: String!) { disableWebhookSubscription(id: $id) { ...SubscriptionFields } }\n": types.DisableWebhookSubscriptionDocument,
    "\n  mutation EnableWebhookSubscription($id: String!) { enableWebhookSubscription(id: $id) { ...SubscriptionFields } }\n": types.EnableWebhookSubscriptionDocument,
    "query WebhookLimits { webhookLimits { minRatePerSecond maxInFlight retryMinDelaySeconds defaultRetryDelaysSeconds maxRetrySpanSeconds } }": types.WebhookLimitsDocument,
    "\n  mutation ResendWebhookDelivery($subscriptionId: String!, $deliveryId: String!) {\n    resendWebhookDelivery(subscriptionId: $subscriptionId, deliveryId: $deliveryId) { ...AttemptFields }\n  }\n": types.ResendWebhookDeliveryDocument,
    "\n  query WebhookFailedSince($subscriptionId: String!, $since: DateTime!, $after: String) {\n    webhookDeliveries(subscriptionId: $subscriptionId, status: failed, since: $since, first: 100, after: $after) {\n      edges { node { deliveryId } } pageInfo { hasNextPage endCursor }\n    }\n  }\n": types.WebhookFailedSinceDocument,
    "\n  mutation RecoverWebhookDeliveries($subscriptionId: String!, $since: DateTime!) {\n    recoverWebhookDeliveries(subscriptionId: $subscriptionId, since: $since) { id since until status }\n  }\n": types.RecoverWebhookDeliveriesDocument,
    "\n  query Boards($first: Int, $after: String) {\n    boards(first: $first, after: $after) { edges { node { id name fields { id name } } } pageInfo { hasNextPage endCursor } }\n  }\n": types.BoardsDocument,
    "\n  query AuditLog($first: Int, $after: String, $action: String) {\n    auditLog(first: $first, after: $after, action: $action) {\n      edges { node { id occurredAt action actor { type id label } address target { type id } changes { field before after } } }\n      pageInfo { hasNextPage endCursor }\n    }\n  }\n": types.AuditLogDocument,
    "\n  fragment AdminBoardFields on Board {\n    id name description priorities archivedAt\n    fields { id name type required options }\n    states { id name category }\n  }\n": types.AdminBoardFieldsFragmentDoc,
    "\n  query AdminBoards($first: Int, $after: String) {\n    boards(first: $first, after: $after) { edges { node { ...AdminBoardFields } } pageInfo { hasNextPage endCursor } }\n  }\n": types.AdminBoardsDocument,
    "mutation CreateBoard($input: CreateBoardInput!) { createBoard(input: $input) { ...AdminBoardFields } }": types.CreateBoardDocument,
    "mutation UpdateBoard($id: String!, $input: UpdateBoardInput!) { updateBoard(id: $id, input: $input) { ...AdminBoardFields } }": types.UpdateBoardDocument,
    "mutation ArchiveBoard($id: String!) { archiveBoard(id: $id) { ...AdminBoardFields } }": types.ArchiveBoardDocument,
    "mutation UnarchiveBoard($id: String!) { unarchiveBoard(id: $id) { ...AdminBoardFields } }": types.UnarchiveBoardDocument,
    "fragment AdminRoleFields on Role { id name isAdmin allBoards permissions boardIds builtIn }": types.AdminRoleFieldsFragmentDoc,
    "query AdminRoles { roles { ...AdminRoleFields } }": types.AdminRolesDocument,
    "mutation CreateRole($input: CreateRoleInput!) { createRole(input: $input) { ...AdminRoleFields } }": types.CreateRoleDocument,
    "mutation UpdateRole($id: Int!, $input: UpdateRoleInput!) { updateRole(id: $id, input: $input) { ...AdminRoleFields } }": types.UpdateRoleDocument,
    "fragment PersonFields on User { id fullName email roleId role { id name } deactivatedAt createdAt }": types.PersonFieldsFragmentDoc,
    "\n  query People($first: Int, $after: String) {\n    users(first: $first, after: $after, kind: human) { edges { node { ...PersonFields } } pageInfo { hasNextPage endCursor } }\n  }\n": types.PeopleDocument,
    "mutation ChangeUserRole($id: Int!, $input: ChangeUserRoleInput!) { changeUserRole(id: $id, input: $input) { ...PersonFields } }": types.ChangeUserRoleDocument,
    "mutation DeactivateUser($id: Int!) { deactivateUser(id: $id) { ...PersonFields } }": types.DeactivateUserDocument,
    "mutation ReactivateUser($id: Int!) { reactivateUser(id: $id) { ...PersonFields } }": types.ReactivateUserDocument,
    "query Invitations { invitations { id email role { id name } expiresAt createdAt } }": types.InvitationsDocument,
    "mutation InviteUser($input: InviteUserInput!) { inviteUser(input: $input) { link emailed invitation { id email } } }": types.InviteUserDocument,
    "mutation RevokeInvitation($id: String!) { revokeInvitation(id: $id) { id email } }": types.RevokeInvitationDocument,
    "query InvitationPreview($token: String!) { invitation(token: $token) { email role { name } workspace { name domain } expiresAt } }": types.InvitationPreviewDocument,
    "\n  mutation AcceptInvitation($token: String!, $fullName: String!, $password: String!) {\n    acceptInvitation(token: $token, fullName: $fullName, password: $password) { email workspace { domain } }\n  }\n": types.AcceptInvitationDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ViewerFields on Viewer {\n    id\n    fullName\n    email\n    isAdmin\n    csrfToken\n    role { id name }\n    workspace { name domain }\n  }\n"): typeof import('./graphql.ts').ViewerFieldsFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query Viewer { viewer { ...ViewerFields } }"): typeof import('./graphql.ts').ViewerDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SignIn($email: String!, $password: String!, $workspace: String) {\n    signIn(email: $email, password: $password, workspace: $workspace) { ...ViewerFields }\n  }\n"): typeof import('./graphql.ts').SignInDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation SignOut { signOut }"): typeof import('./graphql.ts').SignOutDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query Roles { roles { id name isAdmin permissions } }"): typeof import('./graphql.ts').RolesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ApiKeyFields on ApiKey { id name prefix scopes role { id name } expiresAt lastUsedAt revokedAt createdAt }\n"): typeof import('./graphql.ts').ApiKeyFieldsFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ApiKeys($first: Int, $after: String) {\n    apiKeys(first: $first, after: $after) { edges { node { ...ApiKeyFields } } pageInfo { hasNextPage endCursor } }\n  }\n"): typeof import('./graphql.ts').ApiKeysDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateApiKey($input: CreateApiKeyInput!) { createApiKey(input: $input) { value apiKey { ...ApiKeyFields } } }\n"): typeof import('./graphql.ts').CreateApiKeyDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation RevokeApiKey($id: Int!) { revokeApiKey(id: $id) }"): typeof import('./graphql.ts').RevokeApiKeyDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Notifications($first: Int, $after: String, $unreadOnly: Boolean, $topic: NotificationTopic) {\n    notifications(first: $first, after: $after, unreadOnly: $unreadOnly, topic: $topic) {\n      edges { node { id kind title body link read createdAt } } pageInfo { hasNextPage endCursor }\n    }\n  }\n"): typeof import('./graphql.ts').NotificationsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation MarkNotificationRead($id: Int!) { markNotificationRead(id: $id) { id read } }"): typeof import('./graphql.ts').MarkNotificationReadDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query UnreadNotificationCount {\n    all: unreadNotificationCount webhooks: unreadNotificationCount(topic: webhooks) tickets: unreadNotificationCount(topic: tickets)\n  }\n"): typeof import('./graphql.ts').UnreadNotificationCountDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation MarkAllNotificationsRead($topic: NotificationTopic, $throughId: Int) {\n    markAllNotificationsRead(topic: $topic, throughId: $throughId)\n  }\n"): typeof import('./graphql.ts').MarkAllNotificationsReadDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment HealthAttemptFields on WebhookHealthAttempt { status httpStatus error attemptedAt eventType }\n"): typeof import('./graphql.ts').HealthAttemptFieldsFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment SubscriptionFields on WebhookSubscription {\n    id url events boards fields description condition conditionReason consecutiveFailures maxInFlight ratePerSecond\n    destination {\n      __typename\n      ... on HttpsDestination { type url }\n      ... on SqsDestination { type queueUrl region fifo }\n      ... on EventBridgeDestination { type eventBusName region endpoint sourcePrefix }\n      ... on KafkaDestination { type brokers topic tls sasl }\n      ... on RabbitMqDestination { type url exchange routingKeyPrefix }\n      ... on NatsDestination { type servers subject tls }\n    }\n    effectiveInFlight retryAfterUntil ordering\n    payload\n    backlog { pending inFlight oldestWaitingSince waitingFor }\n    health { attempts24h successRate24h lastAttempt { ...HealthAttemptFields } lastFailure { ...HealthAttemptFields } }\n    createdAt updatedAt\n    retrySchedule { delaysSeconds maxAttempts spanSeconds custom }\n  }\n"): typeof import('./graphql.ts').SubscriptionFieldsFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WebhookSubscriptions($first: Int, $after: String) {\n    webhookSubscriptions(first: $first, after: $after) { edges { node { ...SubscriptionFields } } pageInfo { hasNextPage endCursor } }\n  }\n"): typeof import('./graphql.ts').WebhookSubscriptionsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WebhookSubscription($id: String!) { webhookSubscription(id: $id) { ...SubscriptionFields secretRotatedAt } }\n"): typeof import('./graphql.ts').WebhookSubscriptionDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment AttemptFields on WebhookDeliveryAttempt {\n    id deliveryId eventId eventType attempt trigger status httpStatus durationMs responseExcerpt error payload attemptedAt nextAttemptAt\n  }\n"): typeof import('./graphql.ts').AttemptFieldsFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WebhookDeliveries($subscriptionId: String!, $status: DeliveryStatus, $eventType: String, $eventId: String, $first: Int, $after: String) {\n    webhookDeliveries(subscriptionId: $subscriptionId, status: $status, eventType: $eventType, eventId: $eventId, first: $first, after: $after) {\n      edges { node { ...AttemptFields } } pageInfo { hasNextPage endCursor }\n    }\n  }\n"): typeof import('./graphql.ts').WebhookDeliveriesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WebhookDeliveryStats($subscriptionId: String!, $period: String) {\n    webhookDeliveryStats(subscriptionId: $subscriptionId, period: $period) {\n      period bucket from to attempts succeeded failed successRate durationMs { p50 p95 p99 } series { start attempts succeeded failed }\n    }\n  }\n"): typeof import('./graphql.ts').WebhookDeliveryStatsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateWebhookSubscription($input: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $input) { id url secret } }\n"): typeof import('./graphql.ts').CreateWebhookSubscriptionDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation RotateWebhookSecret($id: String!) { rotateWebhookSecret(id: $id) { id secret } }"): typeof import('./graphql.ts').RotateWebhookSecretDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateWebhookSubscription($id: String!, $input: UpdateWebhookSubscriptionInput!) {\n    updateWebhookSubscription(id: $id, input: $input) { ...SubscriptionFields }\n  }\n"): typeof import('./graphql.ts').UpdateWebhookSubscriptionDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation DeleteWebhookSubscription($id: String!) { deleteWebhookSubscription(id: $id) }"): typeof import('./graphql.ts').DeleteWebhookSubscriptionDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation SendWebhookTest($id: String!) { sendWebhookTest(id: $id) { eventId type } }"): typeof import('./graphql.ts').SendWebhookTestDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ResumeWebhookSubscription($id: String!) { resumeWebhookSubscription(id: $id) { ...SubscriptionFields } }\n"): typeof import('./graphql.ts').ResumeWebhookSubscriptionDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PauseWebhookSubscription($id: String!) { pauseWebhookSubscription(id: $id) { ...SubscriptionFields } }\n"): typeof import('./graphql.ts').PauseWebhookSubscriptionDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DisableWebhookSubscription($id: String!) { disableWebhookSubscription(id: $id) { ...SubscriptionFields } }\n"): typeof import('./graphql.ts').DisableWebhookSubscriptionDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation EnableWebhookSubscription($id: String!) { enableWebhookSubscription(id: $id) { ...SubscriptionFields } }\n"): typeof import('./graphql.ts').EnableWebhookSubscriptionDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query WebhookLimits { webhookLimits { minRatePerSecond maxInFlight retryMinDelaySeconds defaultRetryDelaysSeconds maxRetrySpanSeconds } }"): typeof import('./graphql.ts').WebhookLimitsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ResendWebhookDelivery($subscriptionId: String!, $deliveryId: String!) {\n    resendWebhookDelivery(subscriptionId: $subscriptionId, deliveryId: $deliveryId) { ...AttemptFields }\n  }\n"): typeof import('./graphql.ts').ResendWebhookDeliveryDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WebhookFailedSince($subscriptionId: String!, $since: DateTime!, $after: String) {\n    webhookDeliveries(subscriptionId: $subscriptionId, status: failed, since: $since, first: 100, after: $after) {\n      edges { node { deliveryId } } pageInfo { hasNextPage endCursor }\n    }\n  }\n"): typeof import('./graphql.ts').WebhookFailedSinceDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RecoverWebhookDeliveries($subscriptionId: String!, $since: DateTime!) {\n    recoverWebhookDeliveries(subscriptionId: $subscriptionId, since: $since) { id since until status }\n  }\n"): typeof import('./graphql.ts').RecoverWebhookDeliveriesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Boards($first: Int, $after: String) {\n    boards(first: $first, after: $after) { edges { node { id name fields { id name } } } pageInfo { hasNextPage endCursor } }\n  }\n"): typeof import('./graphql.ts').BoardsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AuditLog($first: Int, $after: String, $action: String) {\n    auditLog(first: $first, after: $after, action: $action) {\n      edges { node { id occurredAt action actor { type id label } address target { type id } changes { field before after } } }\n      pageInfo { hasNextPage endCursor }\n    }\n  }\n"): typeof import('./graphql.ts').AuditLogDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment AdminBoardFields on Board {\n    id name description priorities archivedAt\n    fields { id name type required options }\n    states { id name category }\n  }\n"): typeof import('./graphql.ts').AdminBoardFieldsFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AdminBoards($first: Int, $after: String) {\n    boards(first: $first, after: $after) { edges { node { ...AdminBoardFields } } pageInfo { hasNextPage endCursor } }\n  }\n"): typeof import('./graphql.ts').AdminBoardsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation CreateBoard($input: CreateBoardInput!) { createBoard(input: $input) { ...AdminBoardFields } }"): typeof import('./graphql.ts').CreateBoardDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation UpdateBoard($id: String!, $input: UpdateBoardInput!) { updateBoard(id: $id, input: $input) { ...AdminBoardFields } }"): typeof import('./graphql.ts').UpdateBoardDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation ArchiveBoard($id: String!) { archiveBoard(id: $id) { ...AdminBoardFields } }"): typeof import('./graphql.ts').ArchiveBoardDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation UnarchiveBoard($id: String!) { unarchiveBoard(id: $id) { ...AdminBoardFields } }"): typeof import('./graphql.ts').UnarchiveBoardDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "fragment AdminRoleFields on Role { id name isAdmin allBoards permissions boardIds builtIn }"): typeof import('./graphql.ts').AdminRoleFieldsFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query AdminRoles { roles { ...AdminRoleFields } }"): typeof import('./graphql.ts').AdminRolesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation CreateRole($input: CreateRoleInput!) { createRole(input: $input) { ...AdminRoleFields } }"): typeof import('./graphql.ts').CreateRoleDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation UpdateRole($id: Int!, $input: UpdateRoleInput!) { updateRole(id: $id, input: $input) { ...AdminRoleFields } }"): typeof import('./graphql.ts').UpdateRoleDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "fragment PersonFields on User { id fullName email roleId role { id name } deactivatedAt createdAt }"): typeof import('./graphql.ts').PersonFieldsFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query People($first: Int, $after: String) {\n    users(first: $first, after: $after, kind: human) { edges { node { ...PersonFields } } pageInfo { hasNextPage endCursor } }\n  }\n"): typeof import('./graphql.ts').PeopleDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation ChangeUserRole($id: Int!, $input: ChangeUserRoleInput!) { changeUserRole(id: $id, input: $input) { ...PersonFields } }"): typeof import('./graphql.ts').ChangeUserRoleDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation DeactivateUser($id: Int!) { deactivateUser(id: $id) { ...PersonFields } }"): typeof import('./graphql.ts').DeactivateUserDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation ReactivateUser($id: Int!) { reactivateUser(id: $id) { ...PersonFields } }"): typeof import('./graphql.ts').ReactivateUserDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query Invitations { invitations { id email role { id name } expiresAt createdAt } }"): typeof import('./graphql.ts').InvitationsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation InviteUser($input: InviteUserInput!) { inviteUser(input: $input) { link emailed invitation { id email } } }"): typeof import('./graphql.ts').InviteUserDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation RevokeInvitation($id: String!) { revokeInvitation(id: $id) { id email } }"): typeof import('./graphql.ts').RevokeInvitationDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query InvitationPreview($token: String!) { invitation(token: $token) { email role { name } workspace { name domain } expiresAt } }"): typeof import('./graphql.ts').InvitationPreviewDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation AcceptInvitation($token: String!, $fullName: String!, $password: String!) {\n    acceptInvitation(token: $token, fullName: $fullName, password: $password) { email workspace { domain } }\n  }\n"): typeof import('./graphql.ts').AcceptInvitationDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
