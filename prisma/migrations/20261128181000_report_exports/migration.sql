-- Report exports (issue 50, domain/insights/exports.ts): an insights report run as a job, its whole
-- decoded set written as CSV or JSON lines, kept here for its download link (signed, expiring).
CREATE TABLE "report_exports" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "level" TEXT NOT NULL,
    "entity_id" TEXT,
    "format" TEXT NOT NULL,
    "query" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "rows_total" INTEGER,
    "rows_written" INTEGER NOT NULL DEFAULT 0,
    "error" JSONB,
    "content" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMP(3),
    "completed_at" TIMESTAMP(3),
    CONSTRAINT "report_exports_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "report_exports_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "report_exports_organization_id_created_at_id_idx" ON "report_exports"("organization_id", "created_at", "id");
CREATE INDEX "report_exports_queued_idx" ON "report_exports"("created_at") WHERE "status" = 'queued';
