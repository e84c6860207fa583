-- DSP impressions the ledger export passed before the auction log's record of
-- their auction reached ClickHouse (domain/delivery/dsp-revenue.ts): held here,
-- out of the export's way, until the record arrives or its wait runs out.
CREATE TABLE "delivery_export_held" (
    "event_id" TEXT NOT NULL,
    "row" TEXT NOT NULL,
    "held_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "delivery_export_held_pkey" PRIMARY KEY ("event_id")
);
