import { randomUUID } from 'node:crypto';
import {
  deliveryTokenSigner,
  readDeliveryToken,
  signDeliveryToken,
  withViewUrl,
  type DeliveryClaims,
  type OwnClaims,
} from '../../domain/delivery/tracking-token';
import { signToken } from '../../lib/signed-token';

// The auction's shortcuts must give the very bytes of the plain way: URLSearchParams' append, and one token per delivery's kind.
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

describe('delivery tokens', () => {
  const shared = { auction_id: 'a"1', publisher_id: 'p', price_micros: 5, source: 'dsp' as const, dsp_id: 'd', bid_id: 'b\u2028', country: 'US' };
  const cases: [DeliveryClaims['kind'], OwnClaims | null][] = [
    ['view', null],
    ['view', { dsp_view_url: 'https://v.example/?a=1' }],
    ['feedback', { dsp_feedback_url: 'https://f.example/' }],
    ['click', { url: 'https://c.example/"x"', tile: 2 }],
    ['click', { url: 'https://c.example/', tile: undefined }],
  ];

  it('the signer of a delivery signs what signDeliveryToken signs, and each reads back as its claims', () => {
    const sign = deliveryTokenSigner(shared);
    for (const [kind, own] of cases) {
      // Tokens carry `exp` in whole seconds: sign both within one second.
      let pair: [string, string] = ['', ''];
      for (let second = -1; second !== Math.floor(Date.now() / 1000);) {
        second = Math.floor(Date.now() / 1000);
        pair = [sign(kind, own, 600), signDeliveryToken({ ...shared, ...own, kind }, 600)];
      }
      expect(pair[0]).toBe(pair[1]);
      expect(readDeliveryToken(pair[0], kind)).toEqual({ expired: false, form: 'compact', claims: JSON.parse(JSON.stringify({ ...shared, ...own, kind })) });
    }
  });

  it('an in-house delivery: UUIDs in 16 bytes, every claim back as it was, under half the JSON form', () => {
    const inhouse: DeliveryClaims = {
      kind: 'click',
      auction_id: randomUUID(),
      publisher_id: randomUUID(),
      price_micros: Number.MAX_SAFE_INTEGER,
      source: 'inhouse',
      ad_id: randomUUID(),
      ad_group_id: randomUUID(),
      campaign_id: randomUUID(),
      organization_id: randomUUID(),
      ad_account_id: randomUUID(),
      pricing_model: 'cpc',
      cpc_micros: 250_000,
      country: 'DE',
      device: 'mobile',
      user_key: 'abcdefghijklmnopqrstuv',
      chat_key: 'ABCDEFGHIJKLMNOPQRSTUV',
      test: true,
      url: 'https://shoes.example/landing?utm=chat',
    };
    const token = signDeliveryToken(inhouse, 600);
    expect(readDeliveryToken(token, 'click')).toEqual({ expired: false, form: 'compact', claims: inhouse });
    expect(readDeliveryToken(token, 'view')).toBeNull();
    expect(token.length * 2).toBeLessThan(signToken(inhouse, 600).length);
  });

  it('still reads the JSON tokens minted before the compact form, for their own kind only', () => {
    const claims: DeliveryClaims = { ...shared, kind: 'click', url: 'https://c.example/' };
    const old = signToken(claims, 600);
    expect(readDeliveryToken(old, 'click')).toEqual({ expired: false, form: 'json', claims });
    expect(readDeliveryToken(old, 'view')).toBeNull();
    expect(readDeliveryToken(signToken(claims, -1), 'click')).toEqual({ expired: true, form: 'json', claims });
  });

  it('an expired token reads as expired; what is not a token reads as nothing', () => {
    expect(readDeliveryToken(signDeliveryToken({ ...shared, kind: 'view' }, -1), 'view')?.expired).toBe(true);
    for (const bad of [undefined, 42, '', 'a.b', 'a.b.c.d', 'a.b.c.d.e', 'x'.repeat(9000)]) expect(readDeliveryToken(bad, 'view')).toBeNull();
  });
});
