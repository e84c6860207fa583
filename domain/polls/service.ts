import { Prisma, type Db } from '../../lib/db';
import type { PollTokenClaims } from './poll-token';

/**
 * Sponsored-poll votes and results. A poll is a poll ad; its options are the
 * ad's `options` strings, identified by position (`opt_1` .. `opt_4`), which is
 * what the auction delivers as `options[].id` (pollOptionsOf). One vote per
 * delivery (the token's auction id), enforced by the poll_votes primary key so
 * concurrent repeats from any number of api processes count once.
 */
export interface PollOption {
  id: string;
  text: string;
}
export interface PollResults {
  sponsored_poll_id: number;
  question: string;
  total_votes: number;
  options: (PollOption & { votes: number; percentage: number })[];
}

/** Why a vote or results request fails; the edge maps each to the spec's poll error. */
export type PollFailure = 'link_not_found' | 'invalid_option';
export class PollError extends Error {
  constructor(readonly reason: PollFailure) {
    super(reason);
    this.name = 'PollError';
  }
}

export const pollOptionId = (index: number) => `opt_${index + 1}`;

/** The delivered `options[]` of a poll ad. */
export function pollOptionsOf(options: readonly string[]): PollOption[] {
  return options.map((text, i) => ({ id: pollOptionId(i), text }));
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Poll {
  id: number;
  question: string;
  options: PollOption[];
}

/** The poll of a token's ad, its integer id assigned on first use; null when the ad is gone or no poll. */
async function findPoll(db: Db, adId: string): Promise<Poll | null> {
  if (!UUID_RE.test(adId)) return null;
  const ad = await db.ad.findUnique({ where: { id: adId }, select: { creativeType: true, title: true, options: true } });
  if (!ad || ad.creativeType !== 'poll') return null;
  // One statement, so concurrent first uses agree on one id.
  const [row] = await db.$queryRaw<{ id: number }[]>`
    INSERT INTO sponsored_polls (ad_id) VALUES (${adId}::uuid)
    ON CONFLICT (ad_id) DO UPDATE SET ad_id = EXCLUDED.ad_id
    RETURNING id`;
  return { id: row.id, question: ad.title, options: pollOptionsOf(ad.options) };
}

/**
 * Whole percentages that add up to exactly 100 (largest remainder: floor each
 * share, then give the missing points to the largest remainders, earlier option
 * first on ties). With no votes every percentage is 0.
 */
export function percentages(votes: readonly number[]): number[] {
  const total = votes.reduce((a, b) => a + b, 0);
  if (total === 0) return votes.map(() => 0);
  const exact = votes.map((v) => (v * 100) / total);
  const result = exact.map(Math.floor);
  let missing = 100 - result.reduce((a, b) => a + b, 0);
  const byRemainder = exact.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of byRemainder) {
    if (missing-- <= 0) break;
    result[i] += 1;
  }
  return result;
}

/** Votes and whole percentages per option; votes for an option that an ad update removed no longer count. */
function tally(options: PollOption[], byOption: ReadonlyMap<string, number>): Pick<PollResults, 'total_votes' | 'options'> {
  const votes = options.map((o) => byOption.get(o.id) ?? 0);
  const shares = percentages(votes);
  return {
    total_votes: votes.reduce((a, b) => a + b, 0),
    options: options.map((o, i) => ({ ...o, votes: votes[i], percentage: shares[i] })),
  };
}

async function resultsOf(db: Db, poll: Poll): Promise<PollResults> {
  const counts = await db.$queryRaw<{ option_id: string; votes: number }[]>`
    SELECT option_id, count(*)::int AS votes FROM poll_votes WHERE poll_id = ${poll.id} GROUP BY option_id`;
  return { sponsored_poll_id: poll.id, question: poll.question, ...tally(poll.options, new Map(counts.map((c) => [c.option_id, c.votes]))) };
}

/**
 * Per-option results of many poll ads at once (the dashboard's campaign page),
 * labelled with the options given for each ad (what voters were shown).
 */
export async function pollTallies(
  db: Db,
  ads: { id: string; options: readonly string[] }[],
): Promise<Map<string, Pick<PollResults, 'total_votes' | 'options'>>> {
  const ids = ads.map((ad) => ad.id).filter((id) => UUID_RE.test(id));
  const counts = ids.length
    ? await db.$queryRaw<{ ad_id: string; option_id: string; votes: number }[]>`
        SELECT p.ad_id::text AS ad_id, v.option_id, count(*)::int AS votes
        FROM poll_votes v JOIN sponsored_polls p ON p.id = v.poll_id
        WHERE p.ad_id = ANY(${ids}::uuid[]) GROUP BY 1, 2`
    : [];
  const byAd = new Map<string, Map<string, number>>();
  for (const c of counts) byAd.set(c.ad_id, (byAd.get(c.ad_id) ?? new Map<string, number>()).set(c.option_id, c.votes));
  return new Map(ads.map((ad) => [ad.id, tally(pollOptionsOf(ad.options), byAd.get(ad.id) ?? new Map<string, number>())]));
}

export async function pollResults(db: Db, claims: PollTokenClaims): Promise<PollResults> {
  const poll = await findPoll(db, claims.adId);
  if (!poll) throw new PollError('link_not_found');
  return resultsOf(db, poll);
}

/** Records the delivery's vote unless it already voted (a repeat changes nothing), then the results. */
export async function castVote(db: Db, claims: PollTokenClaims, optionId: string): Promise<PollResults> {
  const poll = await findPoll(db, claims.adId);
  if (!poll) throw new PollError('link_not_found');
  if (!poll.options.some((o) => o.id === optionId)) throw new PollError('invalid_option');
  await db.$executeRaw`
    INSERT INTO poll_votes (poll_id, auction_id, option_id, created_at) VALUES (${poll.id}, ${claims.auctionId}, ${optionId}, ${new Date()})
    ON CONFLICT (poll_id, auction_id) DO NOTHING`;
  return resultsOf(db, poll);
}

export type VoteGranularity = 'hourly' | 'daily' | 'monthly' | 'none';

/**
 * Poll votes per ad and time bucket, for insights (`poll_votes`): rows for the
 * given ads with at least one vote in [start, end). `bucket_start` is the UTC
 * bucket start (Unix seconds), or `start` when the granularity is `none`.
 * With `perDelivery`, counts are also split by the voting delivery (`auction_id`),
 * which insights use to find the delivery's country and device.
 */
export async function pollVotesByAd(
  db: Db,
  query: { adIds: string[]; start: Date; end: Date; granularity: VoteGranularity; perDelivery?: boolean },
): Promise<{ ad_id: string; bucket_start: number; votes: number; auction_id?: string }[]> {
  const adIds = query.adIds.filter((id) => UUID_RE.test(id));
  if (adIds.length === 0) return [];
  const unit = { hourly: 'hour', daily: 'day', monthly: 'month', none: null }[query.granularity];
  const startSeconds = Math.floor(query.start.getTime() / 1000);
  const delivery = query.perDelivery ? Prisma.sql`, v.auction_id` : Prisma.empty;
  return db.$queryRaw`
    SELECT p.ad_id::text AS ad_id,
           CASE WHEN ${unit}::text IS NULL THEN ${startSeconds}::bigint
                ELSE extract(epoch FROM date_trunc(${unit ?? 'day'}, v.created_at))::bigint END::int AS bucket_start,
           count(*)::int AS votes${delivery}
    FROM poll_votes v JOIN sponsored_polls p ON p.id = v.poll_id
    WHERE p.ad_id = ANY(${adIds}::uuid[]) AND v.created_at >= ${query.start} AND v.created_at < ${query.end}
    GROUP BY 1, 2${delivery}
    ORDER BY 1, 2${delivery}`;
}
