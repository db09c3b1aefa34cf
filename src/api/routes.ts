// The /public/v1 route table: each domain declares its routes beside its GraphQL types.
import { apiKeyRoutes } from '../api-keys/api-key.routes.ts';
import { boardRoutes } from '../boards/board.routes.ts';
import { userRoutes } from '../users/user.routes.ts';
import { ticketRoutes } from '../tickets/ticket.routes.ts';
import { articleRoutes } from '../knowledge-base/article.routes.ts';
import { webhookRoutes } from '../webhooks/subscriptions/webhook.routes.ts';
import { deliveryLogRoutes } from '../webhooks/log/delivery-log.routes.ts';
import { deliveryStatsRoutes } from '../webhooks/log/delivery-stats.routes.ts';
import { recoverRoutes } from '../webhooks/log/recover.routes.ts';
import { eventTypeRoutes } from '../events/event-type.routes.ts';
import { eventFeedRoutes } from '../events/event-feed.routes.ts';
import { auditRoutes } from '../audit/audit.routes.ts';
import { jobRoutes } from '../jobs/job.routes.ts';

export const routes = [...apiKeyRoutes, ...boardRoutes, ...userRoutes, ...ticketRoutes, ...articleRoutes, ...webhookRoutes, ...deliveryLogRoutes, ...deliveryStatsRoutes, ...recoverRoutes, ...eventTypeRoutes, ...eventFeedRoutes, ...auditRoutes, ...jobRoutes];
