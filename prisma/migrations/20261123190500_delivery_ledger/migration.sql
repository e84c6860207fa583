-- The delivery ledger (domain/delivery/ledger.ts): every tracked delivery event
-- (impression, click, feedback) committed before the tracker answers. Its primary
-- key is the dedupe (one impression, one click, one feedback per auction), and rows
-- wait here (exported_at null) until the exporter has them in ClickHouse.
CREATE TABLE "delivery_ledger" (
    "seq" BIGSERIAL NOT NULL,
    "event_id" TEXT NOT NULL,
    "event_type" TEXT NOT NULL,
    "event_time" TIMESTAMP(3) NOT NULL,
    "auction_id" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL DEFAULT '',
    "ad_account_id" TEXT NOT NULL DEFAULT '',
    "campaign_id" TEXT NOT NULL DEFAULT '',
    "ad_group_id" TEXT NOT NULL DEFAULT '',
    "ad_id" TEXT NOT NULL DEFAULT '',
    "dsp_id" TEXT NOT NULL DEFAULT '',
    "bid_id" TEXT NOT NULL DEFAULT '',
    "publisher_id" TEXT NOT NULL DEFAULT '',
    "country" TEXT NOT NULL DEFAULT '',
    "device" TEXT NOT NULL DEFAULT '',
    "detail" TEXT NOT NULL DEFAULT '',
    "price_micros" BIGINT NOT NULL DEFAULT 0,
    "charged_micros" BIGINT NOT NULL DEFAULT 0,
    "exported_at" TIMESTAMP(3),
    CONSTRAINT "delivery_ledger_pkey" PRIMARY KEY ("event_id")
);
CREATE UNIQUE INDEX "delivery_ledger_seq_key" ON "delivery_ledger"("seq");
CREATE INDEX "delivery_ledger_unexported_idx" ON "delivery_ledger"("seq") WHERE "exported_at" IS NULL;
CREATE INDEX "delivery_ledger_exported_at_idx" ON "delivery_ledger"("exported_at");

-- Calls owed to DSPs (feedback forwarding), retried in the background with backoff.
CREATE TABLE "dsp_callbacks" (
    "id" BIGSERIAL NOT NULL,
    "dsp_id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_error" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "dsp_callbacks_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "dsp_callbacks_next_attempt_at_idx" ON "dsp_callbacks"("next_attempt_at");
