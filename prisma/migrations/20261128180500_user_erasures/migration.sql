-- A chat host's erasure of one of its users (domain/privacy/erasure.ts): accepted in this row, done by the
-- worker's user-erasures job. `user_key` is the auction's hash of the publisher and the user id (the id itself
-- is never stored), and it is cleared when the erasure is done (no semicolon in a comment: the migration runner splits statements on it). `deleted`: rows deleted so far, per store.
CREATE TABLE "user_erasures" (
    "id" UUID NOT NULL,
    "publisher_id" TEXT NOT NULL,
    "user_key" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "requested_at" TIMESTAMP(3) NOT NULL,
    "next_sweep_at" TIMESTAMP(3) NOT NULL,
    "completed_at" TIMESTAMP(3),
    "deleted" JSONB NOT NULL DEFAULT '{}',
    CONSTRAINT "user_erasures_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "user_erasures_status" CHECK ("status" IN ('pending', 'done')),
    CONSTRAINT "user_erasures_key_while_pending" CHECK (("status" = 'pending') = ("user_key" IS NOT NULL))
);
-- One pending erasure per user: a repeated request answers it.
CREATE UNIQUE INDEX "user_erasures_pending_user" ON "user_erasures"("publisher_id", "user_key") WHERE "status" = 'pending';
-- The job's queue.
CREATE INDEX "user_erasures_due" ON "user_erasures"("next_sweep_at") WHERE "status" = 'pending';
