import { deliveryTokenSigner, signDeliveryToken, withViewUrl, type DeliveryClaims } from '../../domain/delivery/tracking-token';

// The auction's shortcuts must give the very bytes of the plain way: URLSearchParams' append, and one JSON.stringify per token.
const appended = (clickUrl: string, viewUrl: string) => {
  const url = new URL(clickUrl);
  url.searchParams.append('view_url', viewUrl);
  return url.toString();
};

describe('withViewUrl', () => {
  const clicks = [
    'https://x.example/c?id=1',
    'https://x.example/c',
    'https://x.example/c?',
    'https://x.example/c?a=b%20c&d=e+f#frag',
    'https://x.example/c#h?x',
    'https://X.example:443/a b/c?q=1&&r',
    'https://x.example/c?viewurlslot0=1',
    "https://x.example/c?a=%zz&b=!*()~'",
    'https://ü.example/ä?ö=ü',
  ];
  let every = '';
  for (let i = 0; i < 0x3000; i += 1) every += String.fromCharCode(i);
  const views = ['https://t.example/v?id=1', "a b!'()~*-._&=+%/?#:;@,é\ud800x\u{1F600}", 'viewurlslot0', every];

  it('is URLSearchParams.append, the second time (the click URL known) as the first', () => {
    for (const click of clicks) {
      for (const view of views) {
        expect(withViewUrl(click, view)).toBe(appended(click, view));
        expect(withViewUrl(click, view)).toBe(appended(click, view));
      }
      expect(withViewUrl(click, undefined)).toBe(click);
    }
  });
});

describe('deliveryTokenSigner', () => {
  it('signs what signDeliveryToken signs', () => {
    const shared = { auction_id: 'a"1', publisher_id: 'p', price_micros: 5, source: 'dsp' as const, dsp_id: 'd', bid_id: 'b\u2028', country: 'US' };
    const sign = deliveryTokenSigner(shared);
    const cases: [DeliveryClaims['kind'], Partial<DeliveryClaims> | null][] = [
      ['view', null],
      ['view', { dsp_view_url: 'https://v.example/?a=1' }],
      ['feedback', { dsp_feedback_url: 'https://f.example/' }],
      ['click', { url: 'https://c.example/"x"', tile: 2 }],
      ['click', { url: 'https://c.example/', tile: undefined }],
    ];
    for (const [kind, own] of cases) {
      // Tokens carry `exp` in whole seconds: sign both within one second.
      let pair: [string, string] = ['', ''];
      for (let second = -1; second !== Math.floor(Date.now() / 1000);) {
        second = Math.floor(Date.now() / 1000);
        pair = [sign(kind, own, 600), signDeliveryToken({ ...shared, ...own, kind }, 600)];
      }
      expect(pair[0]).toBe(pair[1]);
    }
    expect(deliveryTokenSigner({} as never)('view', null, 60)).toBe(signDeliveryToken({ kind: 'view' } as DeliveryClaims, 60));
  });
});
