-- AlterTable
ALTER TABLE "WebhookSubscription" ADD COLUMN     "runAwake" BOOLEAN NOT NULL DEFAULT false;
