import { classifyAddress, isLoopback } from '../../domain/uploads/address-policy';

// Pure function: nothing here opens a socket.
const reasonOf = (ip: string) => {
  const verdict = classifyAddress(ip);
  return verdict.allowed ? 'allowed' : verdict.reason;
};

describe('classifyAddress', () => {
  test.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '100.63.255.255', // just below CGNAT
    '100.128.0.0', // just above CGNAT
    '172.15.255.255', // just below 172.16/12
    '172.32.0.0', // just above
    '192.0.1.1', // beside 192.0.0/24 and 192.0.2/24
    '198.17.255.255', // just below benchmarking
    '198.20.0.0', // just above
    '223.255.255.255', // last before multicast
    '2606:4700:4700::1111',
    '2a00:1450:4001:82b::200e',
    '2001:4860:4860::8888', // inside 2001::/23 but outside the special blocks
    '2003::1', // just above 6to4
  ])('allows global unicast %s', (ip) => {
    expect(classifyAddress(ip)).toEqual({ allowed: true });
  });

  test.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', '"this network"'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['169.254.169.254', 'link-local'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.1', 'documentation (TEST-NET-1)'],
    ['198.51.100.7', 'documentation (TEST-NET-2)'],
    ['203.0.113.9', 'documentation (TEST-NET-3)'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['192.88.99.1', '6to4 relay anycast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['100::1', 'discard-only'],
    ['2001:10::1', 'ORCHID'],
    ['2001:20::1', 'ORCHIDv2'],
    ['2001:2::1', 'benchmarking'],
    ['5f00::1', 'SRv6 SIDs'],
    ['4000::1', 'reserved (not global unicast 2000::/3)'],
    ['1234::1', 'reserved (not global unicast 2000::/3)'],
  ])('rejects %s as %s', (ip, reason) => {
    expect(reasonOf(ip)).toBe(reason);
  });

  // Decision: every IPv6 form embedding an IPv4 address is rejected outright,
  // even when the embedded address is public.
  test.each([
    ['::ffff:127.0.0.1', 'IPv4-mapped'],
    ['::ffff:8.8.8.8', 'IPv4-mapped'],
    ['::ffff:7f00:1', 'IPv4-mapped'], // same as ::ffff:127.0.0.1, the form URL parsing produces
    ['::FFFF:0A00:0001', 'IPv4-mapped'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['::8.8.8.8', 'IPv4-compatible'],
    ['64:ff9b::8.8.8.8', 'NAT64'],
    ['64:ff9b::a00:1', 'NAT64'],
    ['64:ff9b:1::1', 'NAT64 (local-use)'],
    ['2002:0808:0808::1', '6to4'],
    ['2002:7f00:1::', '6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
  ])('rejects embedded-IPv4 form %s as %s', (ip, reason) => {
    expect(reasonOf(ip)).toBe(reason);
  });

  test.each(['', 'localhost', '[::1]', '127.1', '0x7f.0.0.1', '010.0.0.1', '1.2.3.4.5', '::1::', '1.2.3.4%eth0', 'fe80::1%'])(
    'rejects non-address text %p',
    (text) => {
      expect(reasonOf(text)).toBe('not an IP address');
    },
  );

  test('rejects non-string input', () => {
    expect(classifyAddress(undefined as unknown as string)).toEqual({ allowed: false, reason: 'not an IP address' });
  });

  test('expands "::" in any position', () => {
    expect(reasonOf('fe80:0:0:0:0:0:0:1')).toBe('link-local');
    expect(reasonOf('2001:db8:0:0:1::')).toBe('documentation');
    expect(reasonOf('2606:4700::6810:85e5')).toBe('allowed');
    expect(reasonOf('0:0:0:0:0:ffff:1.2.3.4')).toBe('IPv4-mapped');
  });
});

describe('isLoopback', () => {
  test.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['::1', true],
    ['::ffff:127.0.0.1', false], // embedded forms never get the test-only allowance
    ['10.0.0.1', false],
    ['8.8.8.8', false],
    ['localhost', false],
  ])('%s → %p', (ip, expected) => {
    expect(isLoopback(ip)).toBe(expected);
  });
});
