-- CreateIndex
CREATE INDEX "Event_relayedAt_workspaceId_seq_idx" ON "Event"("relayedAt", "workspaceId", "seq");
