/**
 * The native and OpenRTB bidders from JSON fixtures of request and response
 * (test/fixtures/bidders/<protocol>/*.json, the format in bidder-fixtures.ts),
 * as Prebid Server tests its adapters: no reference DSP, no service; a loopback
 * server answers as each fixture says. A new case is a new file.
 */
import { dspAgent } from '../../auction/dsp/http';
import { filled, loadFixtures, runFixture } from './bidder-fixtures';

const fixtures = loadFixtures();
// The DSP calls' pooled keep-alive connections end with the file.
afterAll(() => dspAgent.close());

test('both protocols have fixtures', () => {
  expect(new Set(fixtures.map(([, protocol]) => protocol))).toEqual(new Set(['native', 'openrtb']));
});

describe.each(fixtures)('%s', (_name, protocol, fixture) => {
  let outcome: Awaited<ReturnType<typeof runFixture>>;
  beforeAll(async () => {
    outcome = await runFixture(protocol, fixture);
  });

  test(fixture.description, () => {
    expect(outcome.received.map((r) => `${r.method} ${r.uri}`)).toEqual(fixture.httpCalls.map((c) => `POST ${c.expectedRequest.uri}`));
    fixture.httpCalls.forEach(({ expectedRequest }, i) => {
      const got = outcome.received[i];
      for (const [name, value] of Object.entries(expectedRequest.headers ?? {})) expect([name, got.headers[name]]).toEqual([name, value]);
      if (expectedRequest.body !== undefined) expect(got.body).toEqual(filled(expectedRequest.body));
    });
    expect(outcome.bid).toEqual(fixture.expectedBid);
    expect(outcome.nonBids).toEqual(fixture.expectedNonBids);
  });
});
