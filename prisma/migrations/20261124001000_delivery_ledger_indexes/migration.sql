-- Fewer indexes for every ledger insert and export update to maintain: seq is a
-- sequence (unique without an index, and the exporter's partial index on it
-- stays), and pruning finds old rows by event time through a BRIN index (tiny,
-- and nearly free for append-ordered data) instead of a btree on exported_at.
DROP INDEX "delivery_ledger_seq_key";
DROP INDEX "delivery_ledger_exported_at_idx";
CREATE INDEX "delivery_ledger_event_time_idx" ON "delivery_ledger" USING BRIN ("event_time");
