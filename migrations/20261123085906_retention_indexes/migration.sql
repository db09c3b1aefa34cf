-- CreateIndex
CREATE INDEX "Delivery_status_updatedAt_idx" ON "Delivery"("status", "updatedAt");

-- CreateIndex
CREATE INDEX "Notification_readAt_idx" ON "Notification"("readAt");
