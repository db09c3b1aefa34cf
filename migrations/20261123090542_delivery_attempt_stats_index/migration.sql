-- DropIndex
DROP INDEX "DeliveryAttempt_subscriptionId_attemptedAt_id_idx";

-- CreateIndex
CREATE INDEX "DeliveryAttempt_subscriptionId_attemptedAt_id_status_durati_idx" ON "DeliveryAttempt"("subscriptionId", "attemptedAt" DESC, "id" DESC, "status", "durationMs");
