-- AlterTable
ALTER TABLE "Event" ADD COLUMN     "deliveriesWrittenAt" TIMESTAMP(3);
