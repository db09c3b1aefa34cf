-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN     "manualRequestedAt" TIMESTAMP(3),
ADD COLUMN     "manualRequests" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "WebhookSubscription" ADD COLUMN     "runningRecovery" TEXT;

-- CreateIndex
CREATE INDEX "Delivery_subscriptionId_manualRequestedAt_idx" ON "Delivery"("subscriptionId", "manualRequestedAt");
