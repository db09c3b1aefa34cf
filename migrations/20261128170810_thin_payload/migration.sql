-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN     "payloadMode" TEXT NOT NULL DEFAULT 'full';

-- AlterTable
ALTER TABLE "WebhookSubscription" ADD COLUMN     "payload" TEXT NOT NULL DEFAULT 'full';
