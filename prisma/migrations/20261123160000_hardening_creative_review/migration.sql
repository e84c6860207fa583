-- Per-ad creative review (issue 7, item 3): the approved snapshot keeps serving
-- while an edit waits for review.
ALTER TABLE "ads" ADD COLUMN "creative_revision" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN "creative_review_status" TEXT NOT NULL DEFAULT 'pending',
ADD COLUMN "creative_review_reason" TEXT,
ADD COLUMN "approved_creative" JSONB,
ADD COLUMN "approved_revision" INTEGER;

-- Ads of campaigns already approved were seen by a reviewer: their current creative is the approved one.
UPDATE "ads" AS a
SET "creative_review_status" = 'approved',
    "approved_revision" = a."creative_revision",
    "approved_creative" = jsonb_build_object(
      'type', a."creative_type", 'title', a."title", 'body', a."body", 'cta', a."cta",
      'options', to_jsonb(a."options"), 'target_url', a."target_url",
      'image', (SELECT jsonb_build_object('asset_id', s."id", 'sha256', s."sha256", 'ext', s."ext", 'mime', s."mime", 'width', s."width", 'height', s."height")
                FROM "assets" s WHERE s."id" = a."asset_id"))
FROM "ad_groups" g, "campaigns" c
WHERE g."id" = a."ad_group_id" AND c."id" = g."campaign_id" AND c."review_status" = 'approved';
