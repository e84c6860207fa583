/**
 * An erased user is forgotten by every auction copy's in-memory frequency replica
 * (auction/inhouse/frequency-caps.ts) at its next sync, not when the user's
 * showings leave the 24-hour window: two copies of the auction over the real
 * PostgreSQL, the erasure asked of one of them as a chat host asks it. A showing
 * of the user recorded afterwards (a late view pixel) does not bring the key back;
 * another user's counts are untouched.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { audienceKey, insertFrequencyEvents, type FrequencyEvent } from '../../domain/serving/frequency-events';
import type { AudienceKeys } from '../../auction/inhouse/frequency-caps';
import { config } from '../../lib/config';
import { createPgPool } from '../../lib/db';
import { startAuction, type AuctionHarness } from '../auction/support';
import { until } from '../support/wait';

let copies: AuctionHarness[] = [];
const pool = createPgPool(undefined, 2);
beforeAll(async () => {
  const first = await startAuction();
  // A second copy of the auction for the same publisher: its own replica, the same database.
  const second = await startAuction({}, { reusePublisherKey: first.publisherKey, publisherId: first.publisherId });
  copies = [first, second];
});
afterAll(async () => {
  for (const h of copies) await h.close();
  await pool.end();
});

/** The copy's cap check for these keys: null when its replica holds nothing of them. */
const capCheck = (h: AuctionHarness, keys: AudienceKeys) => h.auction.deps.inhouse.caps!.checkFor(keys, Date.now());

test('every copy forgets an erased user at its next sync; a later showing of the user does not bring the key back; another user is kept', async () => {
  expect(config.frequency.perUserDay).toBeGreaterThan(1);
  const [first] = copies;
  const publisherId = first.publisherId;
  const tag = randomBytes(6).toString('hex');
  const ids = { erased: `erase-me-${tag}`, kept: `keep-me-${tag}` };
  const keysOf = (userId: string): AudienceKeys => ({ publisherId, user: audienceKey('user', publisherId, userId), chat: '' });
  const erased = keysOf(ids.erased);
  const kept = keysOf(ids.kept);
  const campaignId = randomUUID();
  const impression = (keys: AudienceKeys): FrequencyEvent => ({
    kind: 'impression',
    publisherId,
    userKey: keys.user,
    chatKey: '',
    campaignId,
    auctionId: randomUUID(),
    atMs: Date.now(),
    turnMark: 0,
  });

  await insertFrequencyEvents(pool, [impression(erased), impression(kept)]);
  await until(() => copies.every((h) => capCheck(h, erased) !== null && capCheck(h, kept) !== null), 'both users in both replicas');

  const res = await fetch(`${first.url}/v1/publisher/user_erasures`, {
    method: 'POST',
    headers: { authorization: `Bearer ${first.publisherKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ user_id: ids.erased }),
  });
  expect(res.status).toBe(202);
  // Within a sync or two (FREQUENCY_SYNC_MS), in the copy that took the request and in the other alike.
  await until(() => copies.every((h) => capCheck(h, erased) === null), 'the erased user forgotten by both copies', 10_000);
  expect(copies.map((h) => capCheck(h, kept) !== null)).toEqual([true, true]);

  // A view pixel of an ad shown before the request fires now: the erased user's row is not applied; the other user's
  // rows are, up to the cap (so the copies have read this batch when the kept user is capped).
  await insertFrequencyEvents(pool, [impression(erased), ...Array.from({ length: config.frequency.perUserDay - 1 }, () => impression(kept))]);
  await until(() => copies.every((h) => capCheck(h, kept)?.(campaignId) === true), "the kept user's showings read by both copies");
  expect(copies.map((h) => capCheck(h, erased))).toEqual([null, null]);
});
