-- AlterTable
ALTER TABLE "Event" ADD COLUMN     "relayLeaseUntil" TIMESTAMP(3);
