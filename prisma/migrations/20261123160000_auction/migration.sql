-- Publishers (chat hosts) and DSPs for the auction service.
CREATE TABLE "publishers" (
    "id" UUID NOT NULL,
    "public_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "domain" TEXT,
    "key_hash" TEXT NOT NULL,
    "tmax_ms" INTEGER NOT NULL DEFAULT 2000,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "publishers_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "publishers_public_id_key" ON "publishers"("public_id");
CREATE UNIQUE INDEX "publishers_key_hash_key" ON "publishers"("key_hash");

CREATE TABLE "dsps" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "protocol" TEXT NOT NULL,
    "bid_url" TEXT NOT NULL,
    "render_url" TEXT,
    "api_key" TEXT,
    "auth_style" TEXT NOT NULL DEFAULT 'bearer',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "site_id_override" TEXT,
    "publisher_id_override" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "dsps_pkey" PRIMARY KEY ("id")
);

-- The auction's in-memory index listens on channel `auction_index`: every change
-- to a table the index reads sends one notification (payload: the table name),
-- and the listener reloads what changed within milliseconds, never per request.
-- The migration runner (Prisma's wasm engine) splits scripts at every semicolon, even
-- inside quotes, so the body's semicolons are written as the Unicode escape \003B.
CREATE OR REPLACE FUNCTION auction_index_notify() RETURNS trigger LANGUAGE plpgsql AS
  U&'BEGIN PERFORM pg_notify(''auction_index'', TG_TABLE_NAME)\003B RETURN NULL\003B END';

CREATE TRIGGER auction_index_campaigns AFTER INSERT OR UPDATE OR DELETE ON "campaigns" FOR EACH STATEMENT EXECUTE FUNCTION auction_index_notify();
CREATE TRIGGER auction_index_ad_groups AFTER INSERT OR UPDATE OR DELETE ON "ad_groups" FOR EACH STATEMENT EXECUTE FUNCTION auction_index_notify();
CREATE TRIGGER auction_index_ads AFTER INSERT OR UPDATE OR DELETE ON "ads" FOR EACH STATEMENT EXECUTE FUNCTION auction_index_notify();
CREATE TRIGGER auction_index_ad_accounts AFTER INSERT OR UPDATE OR DELETE ON "ad_accounts" FOR EACH STATEMENT EXECUTE FUNCTION auction_index_notify();
CREATE TRIGGER auction_index_publishers AFTER INSERT OR UPDATE OR DELETE ON "publishers" FOR EACH STATEMENT EXECUTE FUNCTION auction_index_notify();
CREATE TRIGGER auction_index_dsps AFTER INSERT OR UPDATE OR DELETE ON "dsps" FOR EACH STATEMENT EXECUTE FUNCTION auction_index_notify();
