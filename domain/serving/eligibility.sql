-- serving_block: eligibility.ts servingBlock in SQL, for the two places that decide servability in
-- PostgreSQL: the auction's index load (auction/inhouse/ad-index.ts) and the charge
-- (domain/delivery/charge.sql). The same rules in the same order, the first failing one returned,
-- NULL when the ad may serve at p_at. test/serving/servability.test.ts runs both over one table of
-- cases. A missing (NULL) status blocks, as no row could serve.
--
-- LANGUAGE sql, IMMUTABLE, one expression: PostgreSQL inlines the call into the statement that
-- makes it, so a caller's plan is the one its own predicates would have had. Changing the
-- signature means dropping the old one first, here.
CREATE OR REPLACE FUNCTION serving_block(
    p_campaign_status text, p_review_status text, p_lifecycle_state text, p_lifecycle_reason text,
    p_start_time timestamp, p_end_time timestamp, p_budget_exhausted boolean,
    p_ad_group_status text, p_ad_status text, p_at timestamp)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE
        WHEN p_lifecycle_state = 'blocked' THEN 'blocked'
        WHEN p_review_status = 'rejected' THEN 'rejected'
        WHEN p_review_status IS DISTINCT FROM 'approved' THEN 'not_approved'
        WHEN p_campaign_status = 'archived' THEN 'archived'
        WHEN p_campaign_status IS DISTINCT FROM 'active' THEN 'campaign_paused'
        WHEN (p_lifecycle_state = 'completed' AND p_lifecycle_reason IS DISTINCT FROM 'budget_exhausted') OR p_end_time <= p_at THEN 'ended'
        WHEN (p_lifecycle_state = 'completed' AND p_lifecycle_reason = 'budget_exhausted') OR p_budget_exhausted THEN 'budget_exhausted'
        WHEN p_start_time IS NULL OR p_start_time > p_at THEN 'scheduled'
        WHEN p_ad_group_status IS DISTINCT FROM 'active' THEN 'ad_group_paused'
        WHEN p_ad_status IS DISTINCT FROM 'active' THEN 'ad_paused'
    END
$$;
