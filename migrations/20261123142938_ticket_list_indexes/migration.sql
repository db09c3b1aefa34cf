-- Indexes for pages that walk newest first (GET /tickets, the delivery log's waiting deliveries
-- and its attempts of one event type).
-- The runner applies a migration in one transaction, so these are plain CREATE INDEX, which blocks
-- writes to the table while it builds. On a large table, create them beforehand with
-- CREATE INDEX CONCURRENTLY and these names (README, Scaling): IF NOT EXISTS then skips them.

-- DropIndex
DROP INDEX IF EXISTS "Delivery_subscriptionId_status_createdAt_idx";

-- DropIndex
DROP INDEX IF EXISTS "Ticket_stateId_idx";

-- CreateIndex
CREATE INDEX IF NOT EXISTS "Delivery_subscriptionId_status_updatedAt_id_idx" ON "Delivery"("subscriptionId", "status", "updatedAt", "id");

-- CreateIndex
CREATE INDEX IF NOT EXISTS "Ticket_workspaceId_id_idx" ON "Ticket"("workspaceId", "id");

-- CreateIndex
CREATE INDEX IF NOT EXISTS "Ticket_boardId_id_idx" ON "Ticket"("boardId", "id");

-- CreateIndex
CREATE INDEX IF NOT EXISTS "Ticket_stateId_id_idx" ON "Ticket"("stateId", "id");

-- CreateIndex
CREATE INDEX IF NOT EXISTS "DeliveryAttempt_subscriptionId_eventType_attemptedAt_id_idx" ON "DeliveryAttempt"("subscriptionId", "eventType", "attemptedAt" DESC, "id" DESC);

-- A board's or a state's tickets are all in one workspace, but the planner takes the filters as
-- independent, expects a handful of rows, and reads all of the board's tickets to sort them
-- instead of walking ("boardId", "id") newest first. These statistics tell it; ANALYZE builds them
-- now rather than at the next autovacuum (a sample of the table: seconds however large).
CREATE STATISTICS IF NOT EXISTS "Ticket_workspaceId_boardId_stateId_stat" (dependencies) ON "workspaceId", "boardId", "stateId" FROM "Ticket";
ANALYZE "Ticket";
