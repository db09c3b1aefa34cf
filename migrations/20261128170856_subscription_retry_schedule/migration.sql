-- AlterTable
ALTER TABLE "WebhookSubscription" ADD COLUMN     "retrySchedule" JSONB;
