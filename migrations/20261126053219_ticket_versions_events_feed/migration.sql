-- AlterTable
ALTER TABLE "Event" ADD COLUMN     "txid" BIGINT NOT NULL DEFAULT (pg_current_xact_id())::text::bigint;

-- AlterTable
ALTER TABLE "Ticket" ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;

-- CreateIndex
CREATE INDEX "Event_workspaceId_txid_seq_idx" ON "Event"("workspaceId", "txid", "seq");
