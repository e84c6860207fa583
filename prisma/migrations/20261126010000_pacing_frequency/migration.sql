-- Pacing (domain/serving/pacing.ts): the controllers plan per campaign with an
-- end time, written by the workers pacing job every few seconds and read by
-- every auction process, so all of them bid on the same share of requests.
CREATE TABLE "campaign_pacing" (
    "campaign_id" UUID NOT NULL,
    "participation" DOUBLE PRECISION NOT NULL,
    "full_rate_micros_per_second" DOUBLE PRECISION,
    "observed_spent_micros" BIGINT NOT NULL,
    "planned_spent_micros" BIGINT NOT NULL,
    "observed_at" TIMESTAMP(3) NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "campaign_pacing_pkey" PRIMARY KEY ("campaign_id"),
    CONSTRAINT "campaign_pacing_campaign_id_fkey" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE
);

-- Frequency caps (auction/inhouse/frequency-caps.ts): who was shown which
-- campaign. The auctions write their wins (provisional) and the delivery ledger
-- the impressions its view pixel records, every auction process reads what was
-- recorded since its last look and keeps the counts of the window in memory.
-- `user_key` and `chat_key` are hashes of the publishers user and chat ids.
CREATE TABLE "frequency_events" (
    "id" BIGSERIAL NOT NULL,
    "recorded_at" TIMESTAMP(3) NOT NULL DEFAULT (clock_timestamp() AT TIME ZONE 'UTC'),
    "kind" TEXT NOT NULL,
    "publisher_id" TEXT NOT NULL,
    "user_key" TEXT NOT NULL,
    "chat_key" TEXT NOT NULL DEFAULT '',
    "campaign_id" UUID NOT NULL,
    "auction_id" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "frequency_events_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "frequency_events_recorded_at_idx" ON "frequency_events"("recorded_at");
