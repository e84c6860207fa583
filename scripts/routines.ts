/**
 * The PostgreSQL functions the code calls, each file beside the TypeScript that calls it
 * (paths from the repository root), in the order scripts/pg-routines.ts applies them:
 * `serving_block` first, which the charge's `record_deliveries` calls. scripts/build.ts copies
 * them to the same paths under dist/.
 */
export const ROUTINE_FILES = ['domain/serving/eligibility.sql', 'domain/delivery/charge.sql'] as const;
