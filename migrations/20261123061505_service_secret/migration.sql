-- CreateTable
CREATE TABLE "ServiceSecret" (
    "name" TEXT NOT NULL,
    "value" BYTEA NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ServiceSecret_pkey" PRIMARY KEY ("name")
);
