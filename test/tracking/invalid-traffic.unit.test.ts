import { isBotUserAgent, judgeTrackedRequest, networkOf, trafficBinding, userAgentHash } from '../../domain/delivery/invalid-traffic';

const BROWSER = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

test('known bots and crawlers by user agent; a browser and no user agent are not', () => {
  expect(isBotUserAgent('Googlebot/2.1 (+http://www.google.com/bot.html)')).toBe(true);
  expect(isBotUserAgent('python-requests/2.31')).toBe(true);
  expect(isBotUserAgent(BROWSER)).toBe(false);
  expect(isBotUserAgent(undefined)).toBe(false);
  expect(isBotUserAgent('')).toBe(false);
});

test('networks: IPv4 /24, IPv6 /48 whatever the notation, IPv4-mapped as IPv4', () => {
  expect(networkOf('203.0.113.7')).toBe('203.0.113');
  expect(networkOf('::ffff:203.0.113.9')).toBe('203.0.113');
  expect(networkOf('127.0.0.1')).toBe(networkOf('127.0.0.42'));
  expect(networkOf('127.0.1.1')).not.toBe(networkOf('127.0.0.1'));
  expect(networkOf('2001:db8:0:1::5')).toBe('2001:db8:0');
  expect(networkOf('2001:0db8:0000:ffff::1')).toBe('2001:db8:0');
  expect(networkOf('2001:db8::')).toBe('2001:db8:0');
  expect(networkOf('::1')).toBe('0:0:0');
  expect(networkOf('not an ip')).toBe('');
});

test('the binding is small: an 8-character hash, the network prefix', () => {
  expect(userAgentHash(BROWSER)).toMatch(/^[A-Za-z0-9_-]{8}$/);
  expect(trafficBinding(BROWSER, '198.51.100.20')).toEqual({ ua_hash: userAgentHash(BROWSER), net: '198.51.100' });
  expect(trafficBinding(BROWSER, '')).toEqual({ ua_hash: userAgentHash(BROWSER), net: undefined });
});

describe('a pixel or click', () => {
  const binding = trafficBinding(BROWSER, '198.51.100.20');
  test('with the auction user agent from its network is valid', () => {
    expect(judgeTrackedRequest(binding, { userAgent: BROWSER, ip: '198.51.100.200' })).toBeNull();
    expect(judgeTrackedRequest({ ua_hash: binding.ua_hash }, { userAgent: BROWSER, ip: '192.0.2.1' })).toBeNull();
  });
  test('from a bot, without the user agent or with another, or from another network is invalid', () => {
    expect(judgeTrackedRequest(binding, { userAgent: 'Googlebot/2.1', ip: '198.51.100.200' })).toBe('bot_user_agent');
    expect(judgeTrackedRequest(binding, { userAgent: undefined, ip: '198.51.100.200' })).toBe('user_agent_mismatch');
    expect(judgeTrackedRequest(binding, { userAgent: `${BROWSER} x`, ip: '198.51.100.200' })).toBe('user_agent_mismatch');
    expect(judgeTrackedRequest(binding, { userAgent: BROWSER, ip: '198.51.101.20' })).toBe('network_mismatch');
  });
  test('a token minted without a binding is left to the burst rule', () => {
    expect(judgeTrackedRequest({}, { userAgent: 'Googlebot/2.1', ip: '192.0.2.1' })).toBeNull();
  });
});
