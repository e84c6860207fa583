-- Each auction copy reads, at every frequency sync, the erasures accepted since its last look (domain/privacy/erasure.ts
-- pendingErasuresSince), so that its in-memory replica forgets the user at once: pending ones by request time.
CREATE INDEX "user_erasures_pending_requested" ON "user_erasures"("requested_at") WHERE "status" = 'pending';
