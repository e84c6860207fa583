/**
 * Personal data in collected events: without consent to keep them, the IP
 * address is stored truncated and the raw user agent not at all
 * (domain/events/consent.ts).
 */
import { config } from '../../lib/config';
import { mayKeepIdentifiers, truncateIp } from '../../domain/events/consent';
import { enrich, type GeoLocation } from '../../domain/events/enrich';
import { organizationIdOf } from '../support/fixtures';
import { call, newOrg, useHarness } from '../support/harness';
import { clickhouse, waitForEvents } from './support';

const IPHONE_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

test('truncateIp: IPv4 to its /24, IPv6 to its /48', () => {
  expect(truncateIp('203.0.113.77')).toBe('203.0.113.0');
  expect(truncateIp('2001:db8:abcd:12:34::1')).toBe('2001:db8:abcd::');
  expect(truncateIp('2001:db8::7')).toBe('2001:db8:0::');
  expect(truncateIp('::1')).toBe('0:0:0::');
  expect(truncateIp('')).toBe('');
});

test('mayKeepIdentifiers: granted keeps, denied truncates, silence truncates only where consent is required', () => {
  expect(mayKeepIdentifiers({ ad_storage: 'granted' }, 'DE')).toBe(true);
  expect(mayKeepIdentifiers({ ad_storage: true }, 'FR')).toBe(true);
  expect(mayKeepIdentifiers({ ad_storage: 'denied' }, 'US')).toBe(false);
  expect(mayKeepIdentifiers({ ad_storage: false }, '')).toBe(false);
  expect(mayKeepIdentifiers(undefined, 'US')).toBe(true);
  expect(mayKeepIdentifiers(undefined, 'DE')).toBe(false);
  expect(mayKeepIdentifiers({}, 'GB')).toBe(false);
  expect(mayKeepIdentifiers({ gdpr: 1 }, 'US')).toBe(false);
  expect(mayKeepIdentifiers({ gdpr_applies: true }, '')).toBe(false);
});

test('enrich locates the full address to decide, and stores the truncated one located as such', () => {
  const seen: string[] = [];
  const geo = (ip: string): GeoLocation => {
    seen.push(ip);
    return { country: 'DE', region: 'BE', city: ip.endsWith('.0') ? 'Berlin' : 'Berlin-Mitte', lat: 52.5, lon: 13.4 };
  };
  const row = enrich(
    { id: 1n, organizationId: 'o', receivedAt: new Date(), ipAddress: '198.51.100.23', event: { event_name: 'lead', user_agent: IPHONE_UA } },
    geo,
  );
  expect(seen).toEqual(['198.51.100.23', '198.51.100.0']);
  expect(row).toMatchObject({ ip_address: '198.51.100.0', user_agent: '', ua_browser: 'Mobile Safari', ua_os: 'iOS', geo_country: 'DE', geo_city: 'Berlin' });
  const granted = enrich(
    {
      id: 2n,
      organizationId: 'o',
      receivedAt: new Date(),
      ipAddress: '198.51.100.23',
      event: { event_name: 'lead', user_agent: IPHONE_UA, consent: { ad_storage: 'granted' } },
    },
    geo,
  );
  expect(granted).toMatchObject({ ip_address: '198.51.100.23', user_agent: IPHONE_UA, geo_city: 'Berlin-Mitte' });
});

describe('through the pipeline', () => {
  const h = useHarness([clickhouse]);

  test('an event whose consent denies ad storage is stored with a truncated address and no raw user agent', async () => {
    const created = await newOrg(h.db);
    const id = await organizationIdOf(h.db, created);
    const send = (event: object) => call(h.url, 'POST', '/api/collect', { token: created.api_key, body: event, headers: { 'x-forwarded-for': '127.0.0.77' } });
    config.events.trustedProxies.add('127.0.0.1');
    try {
      expect((await send({ event_name: 'denied', user_agent: IPHONE_UA, consent: { ad_storage: 'denied' } })).status).toBe(204);
      expect((await send({ event_name: 'granted', user_agent: IPHONE_UA, consent: { ad_storage: 'granted' } })).status).toBe(204);
    } finally {
      config.events.trustedProxies.delete('127.0.0.1');
    }
    const rows = await waitForEvents(id, (r) => r.length === 2);
    const byName = Object.fromEntries(rows.map((r) => [r.event_name, r]));
    expect(byName.denied).toMatchObject({ ip_address: '127.0.0.0', user_agent: '', ua_browser: 'Mobile Safari' });
    expect(byName.granted).toMatchObject({ ip_address: '127.0.0.77', user_agent: IPHONE_UA });
  });
});
