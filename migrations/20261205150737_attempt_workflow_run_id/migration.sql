-- AlterTable
ALTER TABLE "DeliveryAttempt" ADD COLUMN     "workflowRunId" TEXT;
