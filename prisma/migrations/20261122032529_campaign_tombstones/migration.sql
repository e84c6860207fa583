-- CreateTable
CREATE TABLE "campaign_tombstones" (
    "id" UUID NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "campaign_tombstones_pkey" PRIMARY KEY ("id")
);
