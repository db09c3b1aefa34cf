// Imports every domain's types, then builds the schema.
import { builder } from '../graphql/builder.ts';
import { applyInputRules } from '../graphql/input-rules.ts';
import '../api-keys/api-key.types.ts';
import '../workspaces/workspace.types.ts';
import '../auth/session.types.ts';
import '../users/user.types.ts';
import '../users/role.types.ts';
import '../users/people.types.ts';
import '../boards/board.types.ts';
import '../tickets/ticket.types.ts';
import '../knowledge-base/article.types.ts';
import '../notifications/notification.types.ts';
import '../webhooks/subscriptions/webhook.types.ts';
import '../webhooks/subscriptions/limits.types.ts';
import '../webhooks/log/delivery-log.types.ts';
import '../webhooks/log/health.types.ts';
import '../webhooks/log/delivery-stats.types.ts';
import '../webhooks/log/recover.types.ts';
import '../events/event-type.types.ts';
import '../events/event-feed.types.ts';
import '../audit/audit.types.ts';
import '../jobs/job.types.ts';

// Input rules wrap every field with arguments (input-rules.ts), for /graphql and REST alike.
export const schema = applyInputRules(builder.toSchema({ sortSchema: true }));
