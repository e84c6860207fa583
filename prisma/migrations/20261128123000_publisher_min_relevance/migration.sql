-- A publisher's bar on relevance (issue 45): our ads serve only where their ad group's relevance to the
-- conversation reaches it (null: the platform's default (domain/relevance/score.ts)).
ALTER TABLE "publishers" ADD COLUMN "min_relevance" DOUBLE PRECISION;
ALTER TABLE "publishers" ADD CONSTRAINT "publishers_min_relevance_range" CHECK ("min_relevance" IS NULL OR ("min_relevance" >= 0 AND "min_relevance" <= 1));
