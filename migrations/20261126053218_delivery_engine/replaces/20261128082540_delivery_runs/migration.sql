-- Hand-written: the slot protocol's functions go with its table (one delivery run per
-- subscription owns the bound now; workflows/delivery/README.md).
DROP FUNCTION "acquire_delivery_slot"(text, text, bigint, text, timestamp(3), integer, integer, integer, boolean, integer, integer, integer);
DROP FUNCTION "release_delivery_slot"(text, text, timestamp(3), integer, integer, text, timestamp(3), boolean);

-- DropForeignKey
ALTER TABLE "DeliverySlot" DROP CONSTRAINT "DeliverySlot_deliveryId_fkey";

-- DropForeignKey
ALTER TABLE "DeliverySlot" DROP CONSTRAINT "DeliverySlot_subscriptionId_fkey";

-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN     "claim" TEXT,
ADD COLUMN     "scheduledAttempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "seq" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "WebhookSubscription" DROP COLUMN "boundLoweredAt",
DROP COLUMN "boundSuccesses",
DROP COLUMN "rateNextAt",
ADD COLUMN     "capWaitingSince" TIMESTAMP(3),
ADD COLUMN     "ordering" TEXT NOT NULL DEFAULT 'concurrent';

-- DropTable
DROP TABLE "DeliverySlot";

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
