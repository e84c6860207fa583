-- The auction reloads only what a change touches (auction/catalog.ts): row triggers on the
-- tables under the ad index name the campaign (campaigns, ad_groups, ads) or the ad account
-- in the payload, written as table:id. A bare table name still means a whole reload.
-- Semicolons inside the body are written as the Unicode escape \003B (see 20261123160000_auction).
CREATE OR REPLACE FUNCTION auction_index_notify_row() RETURNS trigger LANGUAGE plpgsql AS
  U&'DECLARE r record\003B scope uuid\003B BEGIN
    IF TG_OP = ''DELETE'' THEN r := OLD\003B ELSE r := NEW\003B END IF\003B
    IF TG_TABLE_NAME IN (''campaigns'', ''ad_accounts'') THEN scope := r.id\003B
    ELSIF TG_TABLE_NAME = ''ad_groups'' THEN scope := r.campaign_id\003B
    ELSE SELECT g.campaign_id INTO scope FROM ad_groups g WHERE g.id = r.ad_group_id\003B
    END IF\003B
    PERFORM pg_notify(''auction_index'', TG_TABLE_NAME || coalesce('':'' || scope::text, ''''))\003B
    RETURN NULL\003B
  END';

DROP TRIGGER IF EXISTS auction_index_campaigns ON "campaigns";
DROP TRIGGER IF EXISTS auction_index_ad_groups ON "ad_groups";
DROP TRIGGER IF EXISTS auction_index_ads ON "ads";
DROP TRIGGER IF EXISTS auction_index_ad_accounts ON "ad_accounts";
CREATE TRIGGER auction_index_campaigns AFTER INSERT OR UPDATE OR DELETE ON "campaigns" FOR EACH ROW EXECUTE FUNCTION auction_index_notify_row();
CREATE TRIGGER auction_index_ad_groups AFTER INSERT OR UPDATE OR DELETE ON "ad_groups" FOR EACH ROW EXECUTE FUNCTION auction_index_notify_row();
CREATE TRIGGER auction_index_ads AFTER INSERT OR UPDATE OR DELETE ON "ads" FOR EACH ROW EXECUTE FUNCTION auction_index_notify_row();
CREATE TRIGGER auction_index_ad_accounts AFTER INSERT OR UPDATE OR DELETE ON "ad_accounts" FOR EACH ROW EXECUTE FUNCTION auction_index_notify_row();
