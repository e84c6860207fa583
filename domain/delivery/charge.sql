-- record_deliveries: the charge. One group-commit flush of the delivery ledger in a single round
-- trip, called by charge.ts (recordDeliveries), which documents the rule and whose parameter list
-- test/tracking/charge.test.ts pins to this signature. Called as one statement outside any
-- explicit transaction, so the call is its own transaction and the spend rows stay locked only
-- while it runs and commits.
--
-- Inputs are parallel arrays, one element per tracked event, in arrival order
-- (the caller prices each event from its token, it is bounded here). It returns, per input
-- element, whether it was recorded (false for a repeat, in the ledger or earlier
-- in the batch) and what it charged, plus the campaigns this call exhausted.
--
-- Budgets: the spend rows of the batch's in-house campaigns are locked first
-- (created when missing, in id order so two flushes never deadlock), and the
-- statement after the lock takes a fresh snapshot (a VOLATILE function), so its
-- repeat check and the spend it reads are exact.
--
-- What a token claims is bounded by what the database knows, not by the token: an event is
-- chargeable only when its ad belongs to its ad group and campaign, its type is what the
-- campaign's pricing model pays for (impressions for cpm, clicks for cpc), and the ad may serve at
-- the event's time (`serving_block` in domain/serving/eligibility.sql, the SQL twin of
-- domain/serving/eligibility.ts servingBlock: the auction's index load calls it too). Its price is
-- at most the ad group's max bid (cpm: per impression, max bid / 1000, cpc: the max bid, the
-- defaults when none is set come from the caller), and the charge is at most what is left of the
-- lifetime budget: spend reaches the limit and never passes it.
--
-- Invalid traffic (domain/delivery/invalid-traffic.ts) is recorded with its reason and charges
-- nothing: the reason the tracker decided (p_invalid_reason), else `burst` for an impression beyond
-- the publisher's per-minute threshold for its user key (p_burst_per_user) or network
-- (p_burst_per_network). The burst counters (traffic_bursts) are locked after the spend rows, in key
-- order, so two flushes of two api copies count one after the other and never deadlock.
DROP FUNCTION IF EXISTS record_deliveries(text[], text[], timestamp[], text[], text[], text[], text[], text[], text[], text[],
    text[], text[], text[], text[], text[], text[], bigint[], boolean[], text[], text[], text[]);
DROP FUNCTION IF EXISTS record_deliveries(text[], text[], timestamp[], text[], text[], text[], text[], text[], text[], text[],
    text[], text[], text[], text[], text[], text[], bigint[], text[], text[], text[], bigint, bigint);
DROP FUNCTION IF EXISTS record_deliveries(text[], text[], timestamp[], text[], text[], text[], text[], text[], text[], text[],
    text[], text[], text[], text[], text[], text[], bigint[], text[], text[], text[], text[], text[], bigint, bigint);
CREATE OR REPLACE FUNCTION record_deliveries(
    p_event_id text[], p_event_type text[], p_event_time timestamp[], p_auction_id text[], p_source text[],
    p_organization_id text[], p_ad_account_id text[], p_campaign_id text[], p_ad_group_id text[], p_ad_id text[],
    p_dsp_id text[], p_bid_id text[], p_publisher_id text[], p_country text[], p_device text[], p_detail text[],
    p_price_micros bigint[],
    p_callback_dsp_id text[], p_callback_url text[], p_callback_body text[], p_user_key text[], p_chat_key text[],
    p_net text[], p_invalid_reason text[],
    p_default_cpm_micros bigint, p_default_cpc_micros bigint, p_burst_per_user integer, p_burst_per_network integer,
    OUT recorded boolean[], OUT charged_micros bigint[], OUT exhausted_campaign_ids text[], OUT invalid_reasons text[])
LANGUAGE plpgsql
-- Plan each statement once per connection: left to choose, the plan cache kept
-- re-planning the big statement for every call (a custom plan per batch), which
-- cost more CPU than running it (bench/history.md, "tracking").
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_campaigns uuid[];
    v_bursts text[];
BEGIN
    SELECT array_agg(DISTINCT c::uuid ORDER BY c::uuid) INTO v_campaigns
      FROM unnest(p_campaign_id, p_source) AS x(c, s) WHERE s = 'inhouse' AND c <> '';
    IF v_campaigns IS NOT NULL THEN
        -- A campaign's first charge creates its row (a deleted campaign gets none). Existing rows
        -- are only locked, not rewritten: a hot campaign's row gets one new version a flush.
        INSERT INTO campaign_spend (campaign_id)
             SELECT c.id FROM campaigns c
              WHERE c.id = ANY (v_campaigns) AND NOT EXISTS (SELECT 1 FROM campaign_spend s WHERE s.campaign_id = c.id)
              ORDER BY c.id
        ON CONFLICT (campaign_id) DO NOTHING;
        PERFORM 1 FROM campaign_spend WHERE campaign_id = ANY (v_campaigns) ORDER BY campaign_id FOR UPDATE;
    END IF;

    -- The burst counters of the batch's impressions (minute, publisher, key), created when missing and locked.
    SELECT array_agg(DISTINCT b ORDER BY b) INTO v_bursts
      FROM unnest(p_event_type, p_event_time, p_publisher_id, p_user_key, p_net) AS x(t, at, pub, u, n)
     CROSS JOIN LATERAL unnest(ARRAY[CASE WHEN u <> '' THEN 'u:' || u END, CASE WHEN n <> '' THEN 'n:' || n END]) AS k
     CROSS JOIN LATERAL (SELECT to_char(date_trunc('minute', at), 'YYYY-MM-DD"T"HH24:MI') || ' ' || pub || ' ' || k AS b) AS kb
     WHERE t = 'impression' AND k IS NOT NULL;
    IF v_bursts IS NOT NULL THEN
        DELETE FROM traffic_bursts WHERE minute < (now() AT TIME ZONE 'UTC') - interval '10 minutes';
        INSERT INTO traffic_bursts (minute, publisher_id, key)
             SELECT split_part(b, ' ', 1)::timestamp, split_part(b, ' ', 2), split_part(b, ' ', 3) FROM unnest(v_bursts) AS b ORDER BY b
        ON CONFLICT DO NOTHING;
        PERFORM 1 FROM traffic_bursts
          WHERE (to_char(minute, 'YYYY-MM-DD"T"HH24:MI') || ' ' || publisher_id || ' ' || key) = ANY (v_bursts)
            AND minute >= (SELECT min(split_part(b, ' ', 1)::timestamp) FROM unnest(v_bursts) AS b)
          ORDER BY minute, publisher_id, key FOR UPDATE;
    END IF;

    WITH input AS (
        SELECT * FROM unnest(p_event_id, p_event_type, p_event_time, p_auction_id, p_source, p_organization_id, p_ad_account_id,
                             p_campaign_id, p_ad_group_id, p_ad_id, p_dsp_id, p_bid_id, p_publisher_id, p_country, p_device, p_detail,
                             p_price_micros, p_callback_dsp_id, p_callback_url, p_callback_body, p_user_key, p_chat_key,
                             p_net, p_invalid_reason) WITH ORDINALITY
          AS e(event_id, event_type, event_time, auction_id, source, organization_id, ad_account_id, campaign_id, ad_group_id, ad_id,
               dsp_id, bid_id, publisher_id, country, device, detail, price_micros, callback_dsp_id, callback_url, callback_body,
               user_key, chat_key, net, tracked_invalid, ord)
    ), unique_events AS (
        -- The first copy of each event not yet in the ledger.
        SELECT DISTINCT ON (i.event_id) i.*, date_trunc('minute', i.event_time) AS minute FROM input i
         WHERE NOT EXISTS (SELECT 1 FROM delivery_ledger d WHERE d.event_id = i.event_id)
         ORDER BY i.event_id, i.ord
    ), fresh AS (
        -- Each impression's place among its user's and network's this minute (stored before the batch, then the batch in order).
        SELECT u.*, CASE
                 WHEN u.tracked_invalid <> '' THEN u.tracked_invalid
                 WHEN u.event_type = 'impression' AND (
                      (u.user_key <> '' AND coalesce(bu.impressions, 0) + count(*) FILTER (WHERE u.event_type = 'impression')
                          OVER (PARTITION BY u.publisher_id, u.user_key, u.minute ORDER BY u.ord) > p_burst_per_user)
                   OR (u.net <> '' AND coalesce(bn.impressions, 0) + count(*) FILTER (WHERE u.event_type = 'impression')
                          OVER (PARTITION BY u.publisher_id, u.net, u.minute ORDER BY u.ord) > p_burst_per_network)) THEN 'burst'
                 ELSE '' END AS invalid_reason
          FROM unique_events u
          LEFT JOIN traffic_bursts bu ON bu.minute = u.minute AND bu.publisher_id = u.publisher_id AND bu.key = 'u:' || u.user_key
          LEFT JOIN traffic_bursts bn ON bn.minute = u.minute AND bn.publisher_id = u.publisher_id AND bn.key = 'n:' || u.net
    ), bounded AS (
        -- Chargeable, and at what price at most, by the database's own records (see the header).
        SELECT f.*, s.spent_micros AS spent_before_batch, c.lifetime_spend_limit_micros AS limit_micros,
               (f.source = 'inhouse' AND s.campaign_id IS NOT NULL AND ag.campaign_id = c.id
                AND ((f.event_type = 'impression' AND c.pricing_model <> 'cpc') OR (f.event_type = 'click' AND c.pricing_model = 'cpc'))
                -- The budget is not a block here: the charge below is cut to what is left of it.
                AND serving_block(c.status, c.review_status, c.lifecycle_state, c.lifecycle_reason, c.start_time, c.end_time, false,
                                  ag.status, a.status, f.event_time) IS NULL
                AND f.invalid_reason = '') AS chargeable,
               least(f.price_micros, CASE WHEN c.pricing_model = 'cpc' THEN coalesce(ag.max_bid_micros, p_default_cpc_micros)
                                          ELSE round(coalesce(ag.max_bid_micros, p_default_cpm_micros) / 1000.0)::bigint END) AS bounded_price
          FROM fresh f
          LEFT JOIN campaign_spend s ON f.source = 'inhouse' AND s.campaign_id = nullif(f.campaign_id, '')::uuid
          LEFT JOIN campaigns c ON c.id = s.campaign_id
          LEFT JOIN ads a ON s.campaign_id IS NOT NULL AND a.id = nullif(f.ad_id, '')::uuid
          LEFT JOIN ad_groups ag ON ag.id = a.ad_group_id AND ag.id = nullif(f.ad_group_id, '')::uuid
    ), priced AS (
        SELECT b.*, coalesce(sum(b.bounded_price) FILTER (WHERE b.chargeable)
                   OVER (PARTITION BY b.campaign_id ORDER BY b.ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS earlier_in_batch
          FROM bounded b
    ), charged AS (
        -- The last charge before the limit is cut to what is left of the budget.
        SELECT p.*, CASE WHEN p.chargeable THEN greatest(0, least(p.bounded_price, p.limit_micros - p.spent_before_batch - p.earlier_in_batch)) ELSE 0 END AS charge
          FROM priced p
    ), inserted AS (
        -- DSP events take no spend lock: ON CONFLICT settles a race between two processes.
        INSERT INTO delivery_ledger (event_id, event_type, event_time, auction_id, source, organization_id, ad_account_id, campaign_id,
                                     ad_group_id, ad_id, dsp_id, bid_id, publisher_id, country, device, detail, price_micros, charged_micros,
                                     invalid_reason)
        SELECT event_id, event_type, event_time, auction_id, source, organization_id, ad_account_id, campaign_id,
               ad_group_id, ad_id, dsp_id, bid_id, publisher_id, country, device, detail, price_micros, charge, invalid_reason
          FROM charged
        ON CONFLICT (event_id) DO NOTHING
        RETURNING event_id
    ), done AS (
        -- The rows inserted, looked up among a jsonb object's sorted keys, not joined: a generic plan
        -- estimates one row on each side and joins by a nested loop that rescans `inserted` for every
        -- row, quadratic in the batch (bench/history.md, "tracking": a flush in PostgreSQL).
        SELECT c.* FROM charged c WHERE (SELECT jsonb_object_agg(event_id, true) FROM inserted) ? c.event_id
    ), totals AS (
        SELECT nullif(campaign_id, '')::uuid AS campaign_id, sum(charge) AS charge,
               count(*) FILTER (WHERE event_type = 'impression') AS impressions, count(*) FILTER (WHERE event_type = 'click') AS clicks
          FROM done WHERE spent_before_batch IS NOT NULL GROUP BY 1
    ), spent AS (
        UPDATE campaign_spend s
           SET spent_micros = s.spent_micros + t.charge, impressions = s.impressions + t.impressions, clicks = s.clicks + t.clicks,
               exhausted_at = CASE WHEN s.spent_micros + t.charge >= c.lifetime_spend_limit_micros AND s.exhausted_at IS NULL THEN now() ELSE s.exhausted_at END,
               updated_at = now()
          FROM totals t JOIN campaigns c ON c.id = t.campaign_id
         WHERE s.campaign_id = t.campaign_id
        RETURNING s.campaign_id, t.charge > 0 AND s.spent_micros >= c.lifetime_spend_limit_micros
                  AND s.spent_micros - t.charge < c.lifetime_spend_limit_micros AS exhausted_now
    ), callbacks AS (
        -- Feedback owed to a DSP, forwarded in the background (domain/delivery/dsp-callbacks.ts).
        INSERT INTO dsp_callbacks (dsp_id, url, body)
        SELECT callback_dsp_id, callback_url, callback_body FROM done WHERE callback_url IS NOT NULL
    ), counted AS (
        -- Every recorded impression counts toward its burst counters, valid or not.
        UPDATE traffic_bursts b SET impressions = b.impressions + n.impressions
          FROM (SELECT minute, publisher_id, k AS key, count(*) AS impressions
                  FROM done CROSS JOIN LATERAL unnest(ARRAY[CASE WHEN user_key <> '' THEN 'u:' || user_key END,
                                                            CASE WHEN net <> '' THEN 'n:' || net END]) AS k
                 WHERE event_type = 'impression' AND k IS NOT NULL GROUP BY 1, 2, 3) n
         WHERE b.minute = n.minute AND b.publisher_id = n.publisher_id AND b.key = n.key
    ), shown AS (
        -- An impression counts toward its user's and conversation's frequency caps (our ads) and the
        -- conversation's density (any ad: a DSP's has no campaign), charged or not: the user saw it
        -- (auction/inhouse/frequency-caps.ts). A contextual-only request's has no user key (domain/privacy):
        -- it counts for its conversation only.
        INSERT INTO frequency_events (kind, publisher_id, user_key, chat_key, campaign_id, auction_id, at)
        SELECT 'impression', publisher_id, coalesce(user_key, ''), coalesce(chat_key, ''), nullif(campaign_id, '')::uuid, auction_id, event_time
          FROM done WHERE event_type = 'impression' AND (coalesce(user_key, '') <> '' OR coalesce(chat_key, '') <> '')
    )
    SELECT array_agg(d.ord IS NOT NULL ORDER BY i.ord), array_agg(coalesce(d.charge, 0) ORDER BY i.ord),
           (SELECT array_agg(campaign_id::text ORDER BY campaign_id) FROM spent WHERE exhausted_now),
           array_agg(coalesce(d.invalid_reason, '') ORDER BY i.ord)
      INTO recorded, charged_micros, exhausted_campaign_ids, invalid_reasons
      FROM input i LEFT JOIN done d ON d.ord = i.ord;

    -- The auction's index drops each exhausted campaign on its notification (auction/catalog.ts).
    IF exhausted_campaign_ids IS NOT NULL THEN
        PERFORM pg_notify('auction_index', 'campaign_spend:' || c) FROM unnest(exhausted_campaign_ids) AS c;
    END IF;
END
$$;
