-- While held DSP impressions are being sent: an exporter that finds it set after a crash waits for
-- the dead exporter's insert still running in ClickHouse before looking up what arrived.
ALTER TABLE "delivery_export_cursor" ADD COLUMN "held_in_flight" BOOLEAN NOT NULL DEFAULT false;
