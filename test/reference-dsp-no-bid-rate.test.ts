/**
 * The reference DSP `npm start` runs bids on every conversation unless REFERENCE_DSP_NO_BID_RATE
 * says otherwise (docs/configuration.md): with 1 it never bids, so no-fill shows in development.
 */
import path from 'node:path';
import { serviceNodeArgs } from '../dev/node-flags';
import { startService, type ServiceProcess } from '../dev/processes';

const services: ServiceProcess[] = [];
afterAll(() => Promise.all(services.map((s) => s.stop())));

const bidRequest = {
  userId: 'u-1',
  chatId: 'c-1',
  messages: [
    { role: 'user', content: 'Which running shoes?' },
    { role: 'assistant', content: 'Cushioned ones.' },
  ],
  country_code: 'US',
  device: 'mobile',
  timezone: 'America/New_York',
};

async function bidOf(noBidRate: string | undefined) {
  const dsp = await startService({
    entry: 'dev/reference-dsp/main.ts',
    // Never registered as a DSP of the test database's auctions.
    argv: [...serviceNodeArgs('', path.resolve(__dirname, '../dev/reference-dsp/main.ts')), '--no-register'],
    ready: /reference DSP on/,
    portVariable: 'REFERENCE_DSP_PORT',
    env: { REFERENCE_DSP_NO_BID_RATE: noBidRate },
  });
  services.push(dsp);
  const res = await fetch(`${dsp.url}/native/bid`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer dev-reference-dsp-key', 'x-forwarded-for': '127.0.0.1', 'user-agent': 'test' },
    body: JSON.stringify(bidRequest),
  });
  return ((await res.json()) as { data: { bid?: number } }).data;
}

test('REFERENCE_DSP_NO_BID_RATE=1: no bid; unset: a bid', async () => {
  expect(await bidOf('1')).toEqual({});
  expect((await bidOf(undefined)).bid).toBe(1.5);
});
