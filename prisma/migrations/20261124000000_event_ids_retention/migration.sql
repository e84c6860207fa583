-- The event_id dedupe keeps ids for a window (config.events.dedupeWindowDays), pruned
-- by age: a BRIN index suits an append-ordered timestamp and costs inserts almost nothing.
CREATE INDEX "collected_event_ids_created_at_idx" ON "collected_event_ids" USING BRIN ("created_at");
