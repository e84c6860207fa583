-- The shared spend store (domain/delivery/spend.ts): one row per campaign that has
-- been charged. Every api process charges through it, so no budget is ever
-- exceeded by more than one impression's (or click's) price.
CREATE TABLE "campaign_spend" (
    "campaign_id" UUID NOT NULL,
    "spent_micros" BIGINT NOT NULL DEFAULT 0,
    "impressions" BIGINT NOT NULL DEFAULT 0,
    "clicks" BIGINT NOT NULL DEFAULT 0,
    "exhausted_at" TIMESTAMP(3),
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "campaign_spend_pkey" PRIMARY KEY ("campaign_id")
);
ALTER TABLE "campaign_spend" ADD CONSTRAINT "campaign_spend_campaign_id_fkey" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE ON UPDATE CASCADE;
