-- Webhooks (issue 50, domain/webhooks/): an organization's endpoints, the events its changes raise
-- (an outbox written in the change's own transaction), and one delivery per (endpoint, event) plus
-- replays, each delivered in order per campaign by a Temporal workflow (workflows/webhook-delivery.ts).
CREATE TABLE "webhook_endpoints" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "enabled_events" TEXT[] NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'enabled',
    "signing_secret" TEXT NOT NULL,
    "previous_signing_secret" TEXT,
    "previous_secret_expires_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_endpoints_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "webhook_endpoints_organization_id_created_at_id_idx" ON "webhook_endpoints"("organization_id", "created_at", "id");

CREATE TABLE "webhook_events" (
    "seq" BIGSERIAL NOT NULL,
    "id" TEXT NOT NULL,
    "organization_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "ordering_key" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "dispatched_at" TIMESTAMP(3),
    CONSTRAINT "webhook_events_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "webhook_events_pending_idx" ON "webhook_events"("seq") WHERE "dispatched_at" IS NULL;
CREATE INDEX "webhook_events_created_at_idx" ON "webhook_events"("created_at");

CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "seq" BIGSERIAL NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "event_id" TEXT NOT NULL,
    "ordering_key" TEXT NOT NULL,
    "replay" BOOLEAN NOT NULL DEFAULT false,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_status_code" INTEGER,
    "last_error" TEXT,
    "last_attempt_at" TIMESTAMP(3),
    "signaled_at" TIMESTAMP(3),
    "delivered_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "webhook_events"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
-- One first delivery per (endpoint, event): a dispatch run repeated after a crash adds nothing.
CREATE UNIQUE INDEX "webhook_deliveries_first_key" ON "webhook_deliveries"("endpoint_id", "event_id") WHERE NOT "replay";
CREATE INDEX "webhook_deliveries_endpoint_id_created_at_id_idx" ON "webhook_deliveries"("endpoint_id", "created_at", "id");
CREATE INDEX "webhook_deliveries_unsignaled_idx" ON "webhook_deliveries"("seq") WHERE "signaled_at" IS NULL;
