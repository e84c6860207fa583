-- The audit log (issue 50, domain/audit/log.ts): one row per change to a campaign, ad group, ad, account
-- settings, API key, publisher or DSP, written in the change's own transaction. No foreign keys: the
-- entries outlive what they describe. organization_id is null for the platform's own entities.
CREATE TABLE "audit_log" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID,
    "entity_type" TEXT NOT NULL,
    "entity_id" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "actor_type" TEXT NOT NULL,
    "actor_id" TEXT,
    "before" JSONB,
    "after" JSONB,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "audit_log_organization_id_created_at_id_idx" ON "audit_log"("organization_id", "created_at", "id");
CREATE INDEX "audit_log_entity_id_created_at_idx" ON "audit_log"("entity_id", "created_at");
CREATE INDEX "audit_log_created_at_idx" ON "audit_log"("created_at");
