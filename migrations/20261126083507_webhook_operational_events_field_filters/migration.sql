-- AlterTable
ALTER TABLE "Event" ADD COLUMN     "aboutSubscriptionId" TEXT,
ALTER COLUMN "actorId" DROP NOT NULL;

-- AlterTable
ALTER TABLE "WebhookSubscription" ADD COLUMN     "fields" TEXT[] DEFAULT ARRAY[]::TEXT[];
