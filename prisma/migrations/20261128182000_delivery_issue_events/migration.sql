-- The delivery issues last seen per campaign (domain/serving/issue-events.ts): what the delivery-issues job
-- compares the diagnostics with, to raise webhook events when an issue appears or clears.
CREATE TABLE "campaign_delivery_issues" (
    "campaign_id" UUID NOT NULL,
    "issues" JSONB NOT NULL,
    "checked_at" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "campaign_delivery_issues_pkey" PRIMARY KEY ("campaign_id"),
    CONSTRAINT "campaign_delivery_issues_campaign_id_fkey" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "campaign_delivery_issues_checked_at_idx" ON "campaign_delivery_issues"("checked_at");
