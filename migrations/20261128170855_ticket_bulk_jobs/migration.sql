-- CreateTable
CREATE TABLE "TicketBulkJob" (
    "id" TEXT NOT NULL,
    "workspaceId" INTEGER NOT NULL,
    "apiKeyId" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "total" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "TicketBulkJob_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TicketBulkItem" (
    "jobId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "op" TEXT NOT NULL,
    "input" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "ticketId" INTEGER,
    "problem" JSONB,
    "doneAt" TIMESTAMP(3),

    CONSTRAINT "TicketBulkItem_pkey" PRIMARY KEY ("jobId","index")
);

-- CreateIndex
CREATE INDEX "TicketBulkJob_workspaceId_status_createdAt_idx" ON "TicketBulkJob"("workspaceId", "status", "createdAt");

-- CreateIndex
CREATE INDEX "TicketBulkJob_finishedAt_idx" ON "TicketBulkJob"("finishedAt");

-- CreateIndex
CREATE INDEX "TicketBulkItem_jobId_status_index_idx" ON "TicketBulkItem"("jobId", "status", "index");

-- AddForeignKey
ALTER TABLE "TicketBulkItem" ADD CONSTRAINT "TicketBulkItem_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "TicketBulkJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;
