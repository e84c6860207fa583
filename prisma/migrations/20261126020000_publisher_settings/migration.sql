-- Publisher settings (domain/publishers): a floor, conversation density, blocked ad categories
-- and advertiser domains (OpenRTB bcat and badv, enforced on answers), the sensitive conversation
-- categories the publisher allows, and sandbox publishers (test traffic, nothing billed).
ALTER TABLE "publishers" ADD COLUMN "floor_micros" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "publishers" ADD COLUMN "max_ads_per_conversation" INTEGER;
ALTER TABLE "publishers" ADD COLUMN "min_turns_between_ads" INTEGER;
ALTER TABLE "publishers" ADD COLUMN "blocked_categories" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "publishers" ADD COLUMN "allowed_categories" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "publishers" ADD COLUMN "blocked_advertisers" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "publishers" ADD COLUMN "test" BOOLEAN NOT NULL DEFAULT false;

-- Conversation density counts every ad shown in a chat, a DSP ad too (no campaign of ours), and
-- marks the turn it was shown at by a hash of the last user message (0 for none).
ALTER TABLE "frequency_events" ALTER COLUMN "campaign_id" DROP NOT NULL;
ALTER TABLE "frequency_events" ADD COLUMN "turn_mark" INTEGER NOT NULL DEFAULT 0;
