-- Privacy (issue 48): a publisher may let 13-17 year olds get contextual-only ads (default: no ad);
-- a DSP declares its IAB TCF vendor id (null: not a TCF vendor) and whether it bids without consent.
ALTER TABLE "publishers" ADD COLUMN "teen_contextual_ads" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "dsps" ADD COLUMN "tcf_vendor_id" INTEGER;
ALTER TABLE "dsps" ADD COLUMN "bids_without_consent" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "dsps" ADD CONSTRAINT "dsps_tcf_vendor_id_range" CHECK ("tcf_vendor_id" IS NULL OR ("tcf_vendor_id" >= 1 AND "tcf_vendor_id" <= 65535));
