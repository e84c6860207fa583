-- The ad accounts logo as a stored asset (dashboard Account page, adctl org update):
-- logo_url is its public URL, and the row keeps the bytes out of the asset garbage
-- collectors reach and lets a replaced logo be deleted.
ALTER TABLE "ad_accounts" ADD COLUMN "logo_asset_id" UUID;

CREATE UNIQUE INDEX "ad_accounts_logo_asset_id_key" ON "ad_accounts"("logo_asset_id");

ALTER TABLE "ad_accounts" ADD CONSTRAINT "ad_accounts_logo_asset_id_fkey" FOREIGN KEY ("logo_asset_id") REFERENCES "assets"("id") ON DELETE SET NULL ON UPDATE CASCADE;
