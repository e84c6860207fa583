-- General invalid traffic (domain/delivery/invalid-traffic.ts): a ledger row says why it was not
-- charged ('' when valid), and impressions are counted per publisher, minute and user key or
-- network, under a row lock, so the burst rule holds across api copies.
ALTER TABLE "delivery_ledger" ADD COLUMN "invalid_reason" TEXT NOT NULL DEFAULT '';

CREATE TABLE "traffic_bursts" (
    "minute" TIMESTAMP(3) NOT NULL,
    "publisher_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "impressions" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "traffic_bursts_pkey" PRIMARY KEY ("minute", "publisher_id", "key")
);
