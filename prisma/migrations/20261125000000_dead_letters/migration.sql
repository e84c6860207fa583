-- Rows a PostgreSQL -> ClickHouse mover (event pipeline, ledger export, auction
-- log) could not store because ClickHouse refused them: set aside with the
-- error, so that the rest of their batch, and every later one, goes through.
-- A row is set aside once per (target table, key).
CREATE TABLE "dead_letters" (
    "id" BIGSERIAL NOT NULL,
    "target_table" TEXT NOT NULL,
    "row_key" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "error" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "dead_letters_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "dead_letters_target_table_row_key_key" ON "dead_letters"("target_table", "row_key");
CREATE INDEX "dead_letters_created_at_idx" ON "dead_letters"("created_at");
