-- Sponsored polls: the spec's integer poll id per poll ad, and one vote per delivery.
CREATE TABLE "sponsored_polls" (
    "id" SERIAL NOT NULL,
    "ad_id" UUID NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "sponsored_polls_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "sponsored_polls_ad_id_key" ON "sponsored_polls"("ad_id");
ALTER TABLE "sponsored_polls" ADD CONSTRAINT "sponsored_polls_ad_id_fkey" FOREIGN KEY ("ad_id") REFERENCES "ads"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "poll_votes" (
    "poll_id" INTEGER NOT NULL,
    "auction_id" TEXT NOT NULL,
    "option_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "poll_votes_pkey" PRIMARY KEY ("poll_id","auction_id")
);
CREATE INDEX "poll_votes_poll_id_created_at_idx" ON "poll_votes"("poll_id", "created_at");
ALTER TABLE "poll_votes" ADD CONSTRAINT "poll_votes_poll_id_fkey" FOREIGN KEY ("poll_id") REFERENCES "sponsored_polls"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Event collection: durable inbox, event_id dedupe ledger, pipeline state.
CREATE TABLE "event_inbox" (
    "id" BIGSERIAL NOT NULL,
    "organization_id" UUID NOT NULL,
    "received_at" TIMESTAMP(3) NOT NULL,
    "ip_address" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    CONSTRAINT "event_inbox_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "collected_event_ids" (
    "organization_id" UUID NOT NULL,
    "event_id" TEXT NOT NULL,
    "inbox_id" BIGINT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "collected_event_ids_pkey" PRIMARY KEY ("organization_id","event_id")
);

CREATE TABLE "event_pipeline_state" (
    "id" INTEGER NOT NULL,
    "in_flight_from" BIGINT,
    "in_flight_to" BIGINT,
    CONSTRAINT "event_pipeline_state_pkey" PRIMARY KEY ("id")
);
