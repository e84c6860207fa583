/**
 * The privacy decision (domain/privacy) over real consent strings, encoded by
 * IAB Tech Lab's libraries: minors, GDPR applicability, personalized or
 * contextual only (TCF purposes 1, 3, 4; GPP and US Privacy opt-outs), each
 * DSP's vendor consent, and the field a malformed string is refused on.
 */
import { contextualIp, conversationScopedUserId, dspAccess, privacyDecision, type PrivacySignals } from '../../domain/privacy';
import { whyThisAd } from '../../domain/privacy/why-this-ad';
import { DomainError } from '../../domain/errors';
import { gppString, gppTcfCanada, gppWithTcString, tcString } from '../support/consent-strings';

const adults = { teenContextualAds: false };
const decide = (signals: PrivacySignals, country = 'US', publisher = adults) => privacyDecision(signals, country, publisher);
const vendor = (tcfVendorId: number | null, bidsWithoutConsent = true) => ({ tcfVendorId, bidsWithoutConsent });

describe('minors', () => {
  test.each<[string, PrivacySignals]>([
    ['age_group under_13', { user: { age_group: 'under_13' } }],
    ['regs.coppa 1', { regs: { coppa: 1 } }],
    ['coppa 1 even for an adult', { regs: { coppa: 1 }, user: { age_group: 'adult' } }],
  ])('%s: no ad, whatever the publisher allows teens', (_label, signals) => {
    expect(decide(signals).noAd).toBe('child');
    expect(decide(signals, 'US', { teenContextualAds: true }).noAd).toBe('child');
  });

  test('13_17: no ad by default; contextual only where the publisher allows it', () => {
    expect(decide({ user: { age_group: '13_17' } })).toMatchObject({ noAd: 'teen', personalized: false });
    expect(decide({ user: { age_group: '13_17' } }, 'US', { teenContextualAds: true })).toMatchObject({
      noAd: null,
      personalized: false,
      contextualReason: 'minor',
    });
  });

  test('adult, unknown and no age: an auction', () => {
    for (const age_group of ['adult', 'unknown'] as const) expect(decide({ user: { age_group } })).toMatchObject({ noAd: null, personalized: true });
    expect(decide({ regs: { coppa: 0 } })).toMatchObject({ noAd: null, personalized: true });
  });
});

describe('GDPR applicability', () => {
  test('the host says; else the GPP string; else the country', () => {
    expect(decide({}, 'DE').gdpr).toBe(1);
    expect(decide({}, 'US').gdpr).toBe(0);
    expect(decide({ regs: { gdpr: 0 } }, 'DE').gdpr).toBe(0);
    expect(decide({ regs: { gdpr: 1 } }, 'US').gdpr).toBe(1);
    expect(decide({ regs: { gpp: gppWithTcString(tcString()) } }, 'US').gdpr).toBe(1);
    // The host named the applicable sections and tcfeuv2 is not one: the string says GDPR does not apply.
    expect(decide({ regs: { gpp: gppString({ usnat: { SaleOptOut: 2 } }), gpp_sid: [7] } }, 'DE').gdpr).toBe(0);
  });
});

describe('personalized or contextual only', () => {
  test('no signals outside GDPR: personalized; inside GDPR without a TC string: contextual only', () => {
    expect(decide({}, 'US')).toMatchObject({ personalized: true, contextualReason: null });
    expect(decide({}, 'FR')).toMatchObject({ personalized: false, contextualReason: 'no_tc_string' });
  });

  test('TCF: purposes 1, 3 and 4 all needed', () => {
    expect(decide({ user: { consent: tcString({ purposes: [1, 3, 4] }) } }, 'DE')).toMatchObject({ personalized: true });
    for (const purposes of [
      [3, 4],
      [1, 4],
      [1, 3],
      [1, 2, 7],
    ])
      expect(decide({ user: { consent: tcString({ purposes }) } }, 'DE')).toMatchObject({ personalized: false, contextualReason: 'tcf_purposes' });
  });

  test('TCF is read where GDPR applies: outside, a TC string without consent changes nothing', () => {
    expect(decide({ user: { consent: tcString({ purposes: [] }) } }, 'US')).toMatchObject({ gdpr: 0, personalized: true });
  });

  test('GPP: usnat or a state section opting out of sale, sharing or targeted advertising, or GPC; uspv1 opting out of sale', () => {
    for (const fields of [{ SaleOptOut: 1 }, { SharingOptOut: 1 }, { TargetedAdvertisingOptOut: 1 }, { Gpc: true }])
      expect(decide({ regs: { gpp: gppString({ usnat: fields }) } })).toMatchObject({ personalized: false, contextualReason: 'gpp_opt_out' });
    expect(decide({ regs: { gpp: gppString({ usca: { SaleOptOut: 1 } }) } })).toMatchObject({ personalized: false });
    expect(decide({ regs: { gpp: gppString({ usva: { TargetedAdvertisingOptOut: 1 } }) } })).toMatchObject({ personalized: false });
    expect(decide({ regs: { gpp: gppString({ uspv1: { Notice: 'Y', OptOutSale: 'Y', LspaCovered: 'N' } }) } })).toMatchObject({ personalized: false });
    // 2: did not opt out; 0: not applicable.
    expect(decide({ regs: { gpp: gppString({ usnat: { SaleOptOut: 2, SharingOptOut: 0, TargetedAdvertisingOptOut: 2 } }) } })).toMatchObject({
      personalized: true,
    });
  });

  test('GPP: only the applicable sections (gpp_sid) count', () => {
    const gpp = gppString({ usnat: { SaleOptOut: 2 }, usca: { SaleOptOut: 1 } });
    expect(decide({ regs: { gpp, gpp_sid: [7] } })).toMatchObject({ personalized: true });
    expect(decide({ regs: { gpp, gpp_sid: [8] } })).toMatchObject({ personalized: false });
    expect(decide({ regs: { gpp } })).toMatchObject({ personalized: false });
  });

  test("GPP's tcfeuv2 section is the TC string when there is no user.consent", () => {
    expect(decide({ regs: { gpp: gppWithTcString(tcString({ purposes: [1, 3, 4] })) } }, 'DE')).toMatchObject({ gdpr: 1, personalized: true });
    expect(decide({ regs: { gpp: gppWithTcString(tcString({ purposes: [1] })) } }, 'DE')).toMatchObject({
      personalized: false,
      contextualReason: 'tcf_purposes',
    });
  });

  test('GPP tcfcav1 (TCF Canada), where GDPR does not apply: express consent to purposes 1, 3 and 4 needed, implied consent is not enough', () => {
    expect(decide({ regs: { gpp: gppTcfCanada({ purposes: [1, 3, 4] }) } }, 'CA')).toMatchObject({ gdpr: 0, personalized: true });
    expect(decide({ regs: { gpp: gppTcfCanada({ purposes: [1], implied: [3, 4] }) } }, 'CA')).toMatchObject({
      gdpr: 0,
      personalized: false,
      contextualReason: 'tcfca_purposes',
    });
    // Named applicable by gpp_sid (5, tcfcav1): read the same way.
    expect(decide({ regs: { gpp: gppTcfCanada({ purposes: [] }), gpp_sid: [5] } }, 'CA')).toMatchObject({
      personalized: false,
      contextualReason: 'tcfca_purposes',
    });
  });

  test('US Privacy: opted out of sale (third character Y) is contextual only', () => {
    expect(decide({ regs: { us_privacy: '1YYN' } })).toMatchObject({ personalized: false, contextualReason: 'us_privacy_opt_out' });
    expect(decide({ regs: { us_privacy: '1yyn' } })).toMatchObject({ personalized: false });
    expect(decide({ regs: { us_privacy: '1YNN' } })).toMatchObject({ personalized: true });
    expect(decide({ regs: { us_privacy: '1---' } })).toMatchObject({ personalized: true });
  });
});

describe("each DSP's access", () => {
  test('outside GDPR: personalized for every DSP, vendor or not', () => {
    const d = decide({});
    expect([dspAccess(d, vendor(null)), dspAccess(d, vendor(755)), dspAccess(d, vendor(null, false))]).toEqual([
      'personalized',
      'personalized',
      'personalized',
    ]);
  });

  test('inside GDPR: only a consented TCF vendor gets the personalized request; the others contextual, or none if they cannot bid without consent', () => {
    const d = decide({ user: { consent: tcString({ vendors: [755] }) } }, 'DE');
    expect(dspAccess(d, vendor(755))).toBe('personalized');
    expect(dspAccess(d, vendor(32))).toBe('contextual');
    expect(dspAccess(d, vendor(null))).toBe('contextual');
    expect(dspAccess(d, vendor(32, false))).toBe('none');
    expect(dspAccess(d, vendor(755, false))).toBe('personalized');
  });

  test('a publisher restriction forbidding the vendor purpose 1 takes its consent away', () => {
    const d = decide({ user: { consent: tcString({ vendors: [755, 1000], restrictPurposeOne: [1000] }) } }, 'DE');
    expect([dspAccess(d, vendor(755)), dspAccess(d, vendor(1000))]).toEqual(['personalized', 'contextual']);
  });

  test("GPP's tcfeuv2 section: its publisher restrictions are read like a TC string's", () => {
    const d = decide({ regs: { gpp: gppWithTcString(tcString({ vendors: [755, 1000], restrictPurposeOne: [1000] })) } }, 'DE');
    expect(d).toMatchObject({ gdpr: 1, personalized: true });
    expect([dspAccess(d, vendor(755)), dspAccess(d, vendor(1000)), dspAccess(d, vendor(1000, false))]).toEqual(['personalized', 'contextual', 'none']);
  });

  test('GPP tcfcav1 (TCF Canada): only a vendor with express consent and no restriction gets the personalized request', () => {
    const d = decide({ regs: { gpp: gppTcfCanada({ vendors: [755, 1000], restrictPurposeOne: [1000] }) } }, 'CA');
    expect(d).toMatchObject({ gdpr: 0, personalized: true });
    expect([
      dspAccess(d, vendor(755)),
      dspAccess(d, vendor(1000)),
      dspAccess(d, vendor(32)),
      dspAccess(d, vendor(null)),
      dspAccess(d, vendor(null, false)),
    ]).toEqual(['personalized', 'contextual', 'contextual', 'contextual', 'none']);
  });

  test('contextual only for everyone (an opt-out, a teen): every DSP contextual, or none', () => {
    const d = decide({ regs: { us_privacy: '1YYN' } });
    expect([dspAccess(d, vendor(755)), dspAccess(d, vendor(755, false))]).toEqual(['contextual', 'none']);
    const teen = decide({ user: { age_group: '13_17' } }, 'US', { teenContextualAds: true });
    expect(dspAccess(teen, vendor(null))).toBe('contextual');
  });
});

describe('malformed strings: 400 invalid_value on the field', () => {
  test.each<[string, PrivacySignals, string]>([
    ['TC string that does not decode', { user: { consent: 'AAAA' } }, 'user.consent'],
    ['TC string cut short', { user: { consent: tcString().slice(0, 12) } }, 'user.consent'],
    ['GPP header only', { regs: { gpp: 'DBAB' } }, 'regs.gpp'],
    ['GPP section that does not decode', { regs: { gpp: 'DBABL~!!!' } }, 'regs.gpp'],
    ['GPP with fewer sections than its header', { regs: { gpp: 'DBACNY~BVQqAAAAAg' } }, 'regs.gpp'],
    ['gpp_sid naming a section the string lacks', { regs: { gpp: gppString({ usnat: { SaleOptOut: 2 } }), gpp_sid: [8] } }, 'regs.gpp_sid'],
    ['gpp_sid without gpp', { regs: { gpp_sid: [7] } }, 'regs.gpp_sid'],
  ])('%s', (_label, signals, param) => {
    let error: unknown;
    try {
      decide(signals);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect({ code: (error as DomainError).code, param: (error as DomainError).param }).toEqual({ code: 'invalid_value', param });
  });

  test('a malformed string is refused even when the answer would be no ad', () => {
    expect(() => decide({ regs: { coppa: 1, gpp: 'DBAB' } })).toThrow(DomainError);
  });
});

test('contextual-only identifiers: the IP to its /24 or /48; a userId scoped to the conversation', () => {
  expect(contextualIp('203.0.113.9')).toBe('203.0.113.0');
  expect(contextualIp('2001:db8:1234:5678::1')).toBe('2001:db8:1234::');
  const one = conversationScopedUserId('pub', 'chat-1', 'auction-1');
  expect(one).toMatch(/^ctx-[A-Za-z0-9_-]{22}$/);
  expect(conversationScopedUserId('pub', 'chat-1', 'auction-2')).toBe(one);
  expect(conversationScopedUserId('pub', 'chat-2', 'auction-1')).not.toBe(one);
  expect(conversationScopedUserId('pub', undefined, 'auction-1')).not.toBe(conversationScopedUserId('pub', undefined, 'auction-2'));
});

test("why this ad: the taxonomy's names only, and whether it was personalized", () => {
  // IAB Content Taxonomy 3.0: 483 Sports, 534 Badminton (under Sports), 1 Automotive (not under it).
  expect(whyThisAd([], true)).toBe("Shown because of this conversation's topic.");
  expect(whyThisAd(['483'], true)).toBe('Shown because this conversation is about Sports.');
  expect(whyThisAd(['483', '1', '534'], true)).toBe('Shown because this conversation is about Badminton (Sports).');
  expect(whyThisAd(['483'], false)).toBe('Shown because this conversation is about Sports. Not personalized: no profile or id of yours was used to choose it.');
  expect(whyThisAd(['not-an-id'], true)).toBe("Shown because of this conversation's topic.");
});
