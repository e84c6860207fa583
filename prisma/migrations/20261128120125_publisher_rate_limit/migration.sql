-- A publisher's own rate limit on ad requests (requests per second, all auction copies together);
-- NULL: the auction's default (AUCTION_PUBLISHER_RATE_LIMIT).
ALTER TABLE "publishers" ADD COLUMN "rate_limit_per_second" INTEGER;
