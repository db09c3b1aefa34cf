-- Squashed: the net effect of delivery_bounds, delivery_slot_hand_over and delivery_runs (kept
-- verbatim in replaces/ for databases that applied some of them but not all; src/db/migrations.ts).
-- Their slot table and PL/pgSQL functions were written and then dropped again, so they are not
-- here. On a fresh database "WebhookSubscription"."fields" (webhook_operational_events_field_filters)
-- ends up after "capWaitingSince" and "ordering" instead of before them; nothing reads columns by
-- position.

-- DropIndex
DROP INDEX "Delivery_workflowId_key";

-- AlterTable
ALTER TABLE "DeliveryAttempt" ADD COLUMN     "waitedMs" INTEGER,
ADD COLUMN     "waitedReason" TEXT;

-- AlterTable
ALTER TABLE "WebhookSubscription" ADD COLUMN     "inFlightBound" INTEGER,
ADD COLUMN     "maxInFlight" INTEGER NOT NULL DEFAULT 10,
ADD COLUMN     "ratePerSecond" DOUBLE PRECISION,
ADD COLUMN     "retryAfterUntil" TIMESTAMP(3),
ADD COLUMN     "capWaitingSince" TIMESTAMP(3),
ADD COLUMN     "ordering" TEXT NOT NULL DEFAULT 'concurrent';

-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN     "claim" TEXT,
ADD COLUMN     "scheduledAttempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "seq" BIGINT NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "Delivery_subscriptionId_status_seq_idx" ON "Delivery"("subscriptionId", "status", "seq");

-- CreateIndex
CREATE INDEX "Delivery_subscriptionId_claim_idx" ON "Delivery"("subscriptionId", "claim");

-- Hand-written: deliveries made before this migration take their event's order and the number of
-- scheduled attempts they had.
UPDATE "Delivery" d SET "seq" = e."seq" FROM "Event" e WHERE e."id" = d."eventId";
UPDATE "Delivery" d SET "scheduledAttempts" = x.n
  FROM (SELECT "deliveryId", count(*)::int AS n FROM "DeliveryAttempt" WHERE "trigger" <> 'manual' GROUP BY "deliveryId") x
 WHERE x."deliveryId" = d."id";
