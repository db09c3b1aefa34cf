-- AlterTable
ALTER TABLE "Event" ADD COLUMN     "traceparent" TEXT;
