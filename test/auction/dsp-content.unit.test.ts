/** The one module every DSP string passes through before we keep or serve it. */
import { boundedText, creativeDomain, creativeUrl } from '../../auction/dsp/dsp-content';
import type { BidRejection } from '../../auction/non-bid';

const reasonOf = (f: () => unknown) => {
  try {
    f();
    return null;
  } catch (err) {
    return (err as BidRejection).reason;
  }
};

test('boundedText cuts without splitting a surrogate pair, and leaves well-formed text', () => {
  const emoji = '\u{1F600}'; // two UTF-16 units
  expect(boundedText(`ab${emoji}`, 3)).toBe('ab');
  expect(boundedText(`ab${emoji}`, 4)).toBe(`ab${emoji}`);
  expect(boundedText('x\ud800y', 10)).toBe('x\ufffdy');
  expect(boundedText('x'.repeat(600), 500)).toHaveLength(500);
});

test('creativeUrl: https only, no user info, normalized, bounded', () => {
  expect(creativeUrl('https://EXAMPLE.com/a b"<>', 'u')).toBe('https://example.com/a%20b%22%3C%3E');
  expect(reasonOf(() => creativeUrl('http://example.com/', 'u'))).toBe('not_secure');
  expect(reasonOf(() => creativeUrl('javascript:alert(1)', 'u'))).toBe('not_secure');
  expect(reasonOf(() => creativeUrl('https://a:b@example.com/', 'u'))).toBe('invalid_ad_data');
  expect(reasonOf(() => creativeUrl(`https://example.com/${'x'.repeat(2048)}`, 'u'))).toBe('invalid_ad_data');
});

test('creativeDomain: a host name as the URL parser spells it', () => {
  expect(creativeDomain('Shoes.Example', 'd')).toBe('shoes.example');
  expect(creativeDomain('bücher.example', 'd')).toBe('xn--bcher-kva.example');
  for (const bad of ['shoes.example/x', 'a@b.example', 'a b', '']) expect(reasonOf(() => creativeDomain(bad, 'd'))).toBe('invalid_ad_data');
});
