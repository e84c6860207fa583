-- The ledger export to ClickHouse goes by a cursor, not by marking rows.
-- Marking (SELECT ... FOR UPDATE, then UPDATE exported_at) wrote every row
-- twice more after its insert (a row lock, then a new version and index
-- entries, then work for vacuum), in bursts once a second that stalled the
-- commits of the trackers. Now each row carries the id of the transaction that
-- inserted it (txid), and the exporter reads rows after its cursor (txid, seq) whose
-- transaction ended before every transaction still running (below the xmin of the
-- snapshot: nothing can commit among them later), sends them and moves the cursor.
ALTER TABLE "delivery_ledger" ADD COLUMN "txid" xid8;
-- Existing rows: exported ones before the start of the cursor, waiting ones after it (real
-- transaction ids start at 3, so both sort before every row inserted from now on).
UPDATE "delivery_ledger" SET "txid" = CASE WHEN "exported_at" IS NULL THEN '2'::xid8 ELSE '1'::xid8 END;
ALTER TABLE "delivery_ledger" ALTER COLUMN "txid" SET DEFAULT pg_current_xact_id(), ALTER COLUMN "txid" SET NOT NULL;
DROP INDEX "delivery_ledger_unexported_idx";
ALTER TABLE "delivery_ledger" DROP COLUMN "exported_at";
CREATE INDEX "delivery_ledger_txid_seq_idx" ON "delivery_ledger"("txid", "seq");

-- One row: the last exported (txid, seq), and while a batch is being sent the last
-- row of that batch (pending): rows up to it may already be in ClickHouse.
CREATE TABLE "delivery_export_cursor" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "txid" xid8 NOT NULL,
    "seq" BIGINT NOT NULL,
    "pending_txid" xid8,
    "pending_seq" BIGINT,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "delivery_export_cursor_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "delivery_export_cursor_one_row" CHECK ("id" = 1)
);
INSERT INTO "delivery_export_cursor" ("txid", "seq") VALUES ('1'::xid8, 9223372036854775807);
