-- AlterTable
ALTER TABLE "Event" ADD COLUMN     "aboutBoardIds" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- Operational events written before: the filter their subscription has now is the best known.
UPDATE "Event" e SET "aboutBoardIds" = s."boardIds"
  FROM "WebhookSubscription" s
 WHERE s."id" = e."aboutSubscriptionId" AND cardinality(s."boardIds") > 0;
