import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createApp } from '../../api/app';
import { createCreativeGenerator } from '../../domain/creatives/generator';
import { createAssetStore } from '../../lib/asset-store';
import { startApiProcess, type ServiceProcess } from '../../dev/processes';
import { createDb } from '../../lib/db';
import { signToken } from '../../lib/signed-token';
import { createTemporalClient } from '../../lib/temporal';
import { mintPollTokens, readPollToken } from '../../domain/polls/poll-token';
import { percentages, pollVotesByAd } from '../../domain/polls/service';
import { insertTree } from '../support/fixtures';
import { call, newOrg, useHarness } from '../support/harness';

const VOTE = '/api/v1/tracking/sponsored-polls/vote';
const RESULTS = '/api/v1/tracking/sponsored-polls/results';
const LINK_NOT_FOUND = { detail: 'Link expired or not found' };

const h = useHarness();
let apiProcesses: ServiceProcess[];
let org: Awaited<ReturnType<typeof newOrg>>;

beforeAll(async () => {
  // Two more api processes (api/server.ts) over the same database, for concurrent repeats.
  apiProcesses = await Promise.all([startApiProcess({ NODE_ENV: 'test' }), startApiProcess({ NODE_ENV: 'test' })]);
  org = await newOrg(h.db);
});
afterAll(async () => {
  await Promise.all(apiProcesses.map((p) => p.stop()));
});

async function pollAd(options = ['Red', 'Green', 'Blue']) {
  const { ad } = await insertTree(h.db, org, {
    adGroup: { creativeType: 'poll' },
    ad: { creativeType: 'poll', title: 'Favourite colour?', body: null, options, targetUrl: 'https://example.com/colours' },
  });
  return ad;
}

/** A delivery of the poll: what the auction mints for one auction. */
const deliver = (adId: string, ttlSeconds = 3600) => mintPollTokens({ adId, auctionId: `auc_${randomUUID()}`, ttlSeconds });
const vote = (token: string, option_id: unknown, base = h.url) => call(base, 'POST', `${VOTE}?token=${encodeURIComponent(token)}`, { body: { option_id } });
const results = (token: string) => call(h.url, 'GET', `${RESULTS}?token=${encodeURIComponent(token)}`);

describe('poll tokens', () => {
  it('bind the ad, the delivery and the kind', () => {
    const { voteToken, resultsToken } = mintPollTokens({ adId: 'ad-1', auctionId: 'auc-1', ttlSeconds: 60 });
    expect(readPollToken(voteToken, 'vote')).toEqual({ adId: 'ad-1', auctionId: 'auc-1', kind: 'vote' });
    expect(readPollToken(resultsToken, 'results')).toEqual({ adId: 'ad-1', auctionId: 'auc-1', kind: 'results' });
    expect(readPollToken(voteToken, 'results')).toBeNull();
    expect(readPollToken(resultsToken, 'vote')).toBeNull();
    expect(readPollToken(signToken({ ad: 'ad-1', au: 'auc-1', k: 'vote' }, 60), 'vote')).toBeNull(); // not a poll token
  });
});

describe('percentages (largest remainder)', () => {
  it.each([
    [
      [1, 1, 1],
      [34, 33, 33],
    ],
    [
      [2, 1],
      [67, 33],
    ],
    [
      [1, 1, 1, 1],
      [25, 25, 25, 25],
    ],
    [
      [1, 2, 3, 1],
      [14, 29, 43, 14],
    ],
    [
      [0, 5],
      [0, 100],
    ],
    [
      [0, 0, 0],
      [0, 0, 0],
    ],
  ])('%j -> %j', (votes, expected) => {
    expect(percentages(votes)).toEqual(expected);
  });

  it('always sums to 100 when anyone voted', () => {
    for (let n = 0; n < 200; n++) {
      const votes = Array.from({ length: 2 + (n % 3) }, (_, i) => (n * 7 + i * 13) % 11);
      if (votes.every((v) => v === 0)) continue;
      expect(percentages(votes).reduce((a, b) => a + b, 0)).toBe(100);
    }
  });
});

describe('GET results', () => {
  it('returns the spec results object without voting', async () => {
    const ad = await pollAd();
    const { resultsToken } = deliver(ad.id);
    const res = await results(resultsToken);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'success',
      data: {
        sponsored_poll_id: expect.any(Number),
        question: 'Favourite colour?',
        total_votes: 0,
        options: [
          { id: 'opt_1', text: 'Red', votes: 0, percentage: 0 },
          { id: 'opt_2', text: 'Green', votes: 0, percentage: 0 },
          { id: 'opt_3', text: 'Blue', votes: 0, percentage: 0 },
        ],
      },
    });
    expect(Number.isInteger(res.body.data.sponsored_poll_id)).toBe(true);
    // Reading again neither votes nor changes the poll's id.
    const again = await results(resultsToken);
    expect(again.body.data).toEqual(res.body.data);
  });
});

describe('POST vote', () => {
  it('records one vote per delivery and returns lifetime results', async () => {
    const ad = await pollAd();
    const first = deliver(ad.id);
    const res = await vote(first.voteToken, 'opt_2');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.data).toMatchObject({ total_votes: 1, question: 'Favourite colour?' });
    expect(res.body.data.options.map((o: { votes: number }) => o.votes)).toEqual([0, 1, 0]);
    expect(res.body.data.options.map((o: { percentage: number }) => o.percentage)).toEqual([0, 100, 0]);

    // A repeat (even for another option) changes nothing and is no error.
    const repeat = await vote(first.voteToken, 'opt_1');
    expect(repeat.status).toBe(200);
    expect(repeat.body.data).toEqual(res.body.data);

    // Other deliveries count; percentages add up to 100 by largest remainder.
    await vote(deliver(ad.id).voteToken, 'opt_1');
    const third = await vote(deliver(ad.id).voteToken, 'opt_3');
    expect(third.body.data.total_votes).toBe(3);
    expect(third.body.data.options.map((o: { percentage: number }) => o.percentage)).toEqual([34, 33, 33]);
    expect((await results(first.resultsToken)).body.data).toEqual(third.body.data);
  });

  it('counts concurrent repeats from several api processes once', async () => {
    const ad = await pollAd(['Yes', 'No']);
    const { voteToken, resultsToken } = deliver(ad.id);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => vote(voteToken, i % 2 ? 'opt_1' : 'opt_2', [h.url, ...apiProcesses.map((p) => p.url)][i % 3])),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
    const final = await results(resultsToken);
    expect(final.body.data.total_votes).toBe(1);
    expect(final.body.data.options.reduce((n: number, o: { votes: number }) => n + o.votes, 0)).toBe(1);
  });

  it('400 Invalid poll option for an option the poll does not have', async () => {
    const ad = await pollAd();
    const { voteToken, resultsToken } = deliver(ad.id);
    for (const option of ['opt_4', 'opt_0', 'Red', '']) {
      const res = await vote(voteToken, option);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: 'Invalid poll option' });
    }
    expect((await results(resultsToken)).body.data.total_votes).toBe(0);
  });

  it('404 for malformed, expired, tampered and foreign tokens', async () => {
    const ad = await pollAd();
    const { voteToken, resultsToken } = deliver(ad.id);
    const expired = deliver(ad.id, -1);
    const [kid, body, sig] = voteToken.split('.');
    const forged = Buffer.from(JSON.stringify({ t: 'poll', k: 'vote', ad: ad.id, au: 'auc_forged', exp: 9_999_999_999 })).toString('base64url');
    const { ad: card } = await insertTree(h.db, org); // a chat card, not a poll
    const badVoteTokens = [
      'not-a-token',
      `${kid}.${body}`,
      `${kid}.${forged}.${sig}`,
      `${kid}.${body}.${sig.slice(0, -3)}AAA`,
      `zz.${body}.${sig}`,
      expired.voteToken,
      resultsToken, // a results token is not a vote token
      deliver(randomUUID()).voteToken, // no such ad
      deliver('not-a-uuid').voteToken,
      deliver(card.id).voteToken,
      signToken({ t: 'click', ad: ad.id }, 60), // another URL family's token
    ];
    for (const token of badVoteTokens) {
      const res = await vote(token, 'opt_1');
      expect({ token, status: res.status, body: res.body }).toEqual({ token, status: 404, body: LINK_NOT_FOUND });
    }
    for (const token of [expired.resultsToken, voteToken, 'garbage', `${kid}.${forged}.${sig}`]) {
      const res = await results(token);
      expect({ token, status: res.status, body: res.body }).toEqual({ token, status: 404, body: LINK_NOT_FOUND });
    }
    expect((await results(resultsToken)).body.data.total_votes).toBe(0);
  });

  it('422 with field errors when token or option_id is missing', async () => {
    const ad = await pollAd();
    const { voteToken } = deliver(ad.id);
    const noToken = await call(h.url, 'POST', VOTE, { body: { option_id: 'opt_1' } });
    expect(noToken.status).toBe(422);
    expect(noToken.body).toEqual({ detail: [{ loc: ['query', 'token'], msg: 'Field required', type: 'missing' }] });

    // A token in the body does not count.
    const tokenInBody = await call(h.url, 'POST', VOTE, { body: { option_id: 'opt_1', token: voteToken } });
    expect(tokenInBody.status).toBe(422);
    expect(tokenInBody.body).toEqual({ detail: [{ loc: ['query', 'token'], msg: 'Field required', type: 'missing' }] });

    const noOption = await call(h.url, 'POST', `${VOTE}?token=${voteToken}`, { body: {} });
    expect(noOption.status).toBe(422);
    expect(noOption.body).toEqual({ detail: [{ loc: ['body', 'option_id'], msg: 'Field required', type: 'missing' }] });

    const noBody = await call(h.url, 'POST', `${VOTE}?token=${voteToken}`);
    expect(noBody.status).toBe(422);
    expect(noBody.body.detail[0]).toMatchObject({ loc: ['body'], type: 'missing' });

    const neither = await call(h.url, 'POST', VOTE, { body: {} });
    expect(neither.status).toBe(422);
    expect(neither.body.detail.map((e: { loc: string[] }) => e.loc)).toEqual([
      ['query', 'token'],
      ['body', 'option_id'],
    ]);

    const wrongType = await call(h.url, 'POST', `${VOTE}?token=${voteToken}`, { body: { option_id: 1 } });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.detail[0]).toMatchObject({ loc: ['body', 'option_id'], type: 'string_type' });

    const resultsNoToken = await call(h.url, 'GET', RESULTS);
    expect(resultsNoToken.status).toBe(422);
    expect(resultsNoToken.body).toEqual({ detail: [{ loc: ['query', 'token'], msg: 'Field required', type: 'missing' }] });
  });

  it('405 in the poll error shape for another method', async () => {
    const res = await call(h.url, 'GET', VOTE);
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ detail: 'Method Not Allowed' });
    expect(res.headers.get('allow')).toContain('POST');
  });

  it('500 Internal Server Error with no details when tracking fails', async () => {
    // A real failure: an api whose database refuses connections (loopback port 1).
    const brokenDb = createDb('postgresql://adplatform:adplatform@127.0.0.1:1/none', 1);
    const temporal = createTemporalClient();
    const server: Server = await new Promise((resolve) => {
      const s = createApp({ db: brokenDb, temporal, assets: createAssetStore(), creatives: createCreativeGenerator() }).listen(0, '127.0.0.1', () =>
        resolve(s),
      );
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const { voteToken, resultsToken } = deliver(randomUUID());
      const res = await vote(voteToken, 'opt_1', url);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ detail: 'Internal Server Error' });
      const read = await call(url, 'GET', `${RESULTS}?token=${resultsToken}`);
      expect(read.status).toBe(500);
      expect(read.body).toEqual({ detail: 'Internal Server Error' });
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await temporal.connection.close();
      await brokenDb.$disconnect().catch(() => undefined);
    }
  });
});

describe('pollVotesByAd (for insights)', () => {
  it('counts votes per ad and bucket', async () => {
    const a = await pollAd(['Yes', 'No']);
    const b = await pollAd(['Yes', 'No']);
    await vote(deliver(a.id).voteToken, 'opt_1');
    await vote(deliver(a.id).voteToken, 'opt_2');
    await vote(deliver(b.id).voteToken, 'opt_1');
    const start = new Date(Date.now() - 86_400_000);
    const end = new Date(Date.now() + 86_400_000);
    const rows = await pollVotesByAd(h.db, { adIds: [a.id, b.id], start, end, granularity: 'none' });
    expect(rows).toEqual(
      expect.arrayContaining([
        { ad_id: a.id, bucket_start: Math.floor(start.getTime() / 1000), votes: 2 },
        { ad_id: b.id, bucket_start: Math.floor(start.getTime() / 1000), votes: 1 },
      ]),
    );
    expect(rows).toHaveLength(2);
    const daily = await pollVotesByAd(h.db, { adIds: [a.id], start, end, granularity: 'daily' });
    const today = Math.floor(Date.now() / 86_400_000) * 86_400;
    expect(daily).toEqual([{ ad_id: a.id, bucket_start: today, votes: 2 }]);
    expect(await pollVotesByAd(h.db, { adIds: [a.id], start: end, end: new Date(end.getTime() + 1000), granularity: 'none' })).toEqual([]);
  });
});
