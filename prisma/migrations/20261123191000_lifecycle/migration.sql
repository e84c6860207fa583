-- Campaign lifecycle (domain/campaigns/lifecycle.ts): completed (end_time reached or
-- budget exhausted) or blocked by a reviewer. Null while the campaign may still serve.
ALTER TABLE "campaigns" ADD COLUMN "lifecycle_state" TEXT,
ADD COLUMN "lifecycle_reason" TEXT,
ADD COLUMN "lifecycle_changed_at" TIMESTAMP(3);
