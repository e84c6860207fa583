import { createHash } from 'node:crypto';
import { GDPR_COUNTRIES } from '../countries-iso3';
import { invalidValue } from '../errors';
import { truncateIp } from '../events/consent';
import { decodeGpp, decodeTcString, usPrivacyOptOut, type TcfConsent } from './signals';

/**
 * The privacy decision of one ad request, made here and nowhere else
 * (docs/api-behaviour.md, "Privacy: consent signals and minors"): from the
 * chat host's `regs` and `user` (OpenRTB 2.6's names), the user's country and
 * the publisher's setting for teens, whether there is an ad at all, whether
 * it may be personalized, whether GDPR applies, and per DSP whether its TCF
 * vendor id has the user's consent (dspAccess).
 *
 * TCF v2.2 purposes, purpose by purpose (read when GDPR applies):
 *  1 store and/or access information on a device: needed for any identifier;
 *  3 create profiles for personalised advertising, 4 use profiles to select
 *    personalised advertising: needed for a personalized request;
 *  2 (basic ads), 7 (measure ad performance) and 5, 6, 8-11: not what decides
 *    personalization; the string travels to DSPs, which apply their own legal basis.
 * Without consent to 1, 3 and 4 (or without a TC string where GDPR applies) the
 * request is contextual only. TCF Canada (GPP's tcfcav1 section, where it
 * applies and GDPR does not) is read the same way, its express consents only
 * (purposes, vendors) and its publisher restrictions (`tcfca_purposes`). Special features: 1 (precise geolocation) is
 * never sent (only the IP's country, region and city), 2 (device scanning)
 * never done, so neither changes a request.
 */
export const AGE_GROUPS = ['under_13', '13_17', 'adult', 'unknown'] as const;
export type AgeGroup = (typeof AGE_GROUPS)[number];

/** The purposes a personalized request needs (above). */
export const PERSONALIZATION_PURPOSES = [1, 3, 4] as const;

export interface PrivacySignals {
  regs?: { gdpr?: number; gpp?: string; gpp_sid?: number[]; us_privacy?: string; coppa?: number };
  user?: { consent?: string; age_group?: AgeGroup };
}

/** Why a request is contextual only (null: it may be personalized). */
export type ContextualReason = 'minor' | 'no_tc_string' | 'tcf_purposes' | 'tcfca_purposes' | 'gpp_opt_out' | 'us_privacy_opt_out';

export interface PrivacyDecision {
  /** No ad at all: `child` (under 13, or COPPA), `teen` (13-17 where the publisher does not allow contextual ads); null: an auction. */
  noAd: 'child' | 'teen' | null;
  /** OpenRTB regs.gdpr: the host's `regs.gdpr`, else the GPP string's applicability, else the country's. */
  gdpr: 0 | 1;
  /** Personalized requests are allowed (a DSP's own consent still decides: dspAccess); false: contextual only for every bidder. */
  personalized: boolean;
  contextualReason: ContextualReason | null;
  /**
   * The TC string that governs: when GDPR applies and one was sent (`user.consent`, else GPP's tcfeuv2
   * section); when it does not, GPP's applicable tcfcav1 section (TCF Canada), if any.
   */
  tcf: TcfConsent | null;
}

const decision = (d: PrivacyDecision): Readonly<PrivacyDecision> => Object.freeze(d);
/** The common requests (no signals), decided without allocating. */
const OPEN = decision({ noAd: null, gdpr: 0, personalized: true, contextualReason: null, tcf: null });
const GDPR_WITHOUT_STRING = decision({ noAd: null, gdpr: 1, personalized: false, contextualReason: 'no_tc_string', tcf: null });

/** A publisher's settings the decision reads. */
export interface PublisherPrivacy {
  /** 13-17 year olds may get contextual-only ads (else no ad). */
  teenContextualAds: boolean;
}

/**
 * The decision for one request. Throws the request's 400 (`invalid_value` on
 * the field) for a consent string that does not decode.
 */
export function privacyDecision(signals: PrivacySignals, country: string, publisher: PublisherPrivacy): Readonly<PrivacyDecision> {
  const { regs, user } = signals;
  if (!regs && !user) return GDPR_COUNTRIES.has(country) ? GDPR_WITHOUT_STRING : OPEN;
  const age = user?.age_group;
  if (regs?.gpp_sid !== undefined && regs.gpp === undefined) throw invalidValue('regs.gpp_sid', 'regs.gpp_sid goes with regs.gpp');
  // Decoded (and so checked) even when the answer is no ad: a malformed string is the request's error.
  const gpp = regs?.gpp === undefined ? null : decodeGpp(regs.gpp, regs.gpp_sid);
  const consent = user?.consent === undefined ? null : decodeTcString(user.consent, 'user.consent');
  const gppTcfApplies = gpp !== null && gpp.tcf !== null;
  const gdpr: 0 | 1 =
    regs?.gdpr !== undefined
      ? (regs.gdpr as 0 | 1)
      : gppTcfApplies
        ? 1
        : regs?.gpp_sid !== undefined
          ? 0 // the host named the sections that apply, and tcfeuv2 is not one
          : GDPR_COUNTRIES.has(country)
            ? 1
            : 0;
  const tcfCa = gdpr === 0 ? (gpp?.tcfCa ?? null) : null;
  const tcf = gdpr === 1 ? (consent ?? gpp?.tcf ?? null) : tcfCa;
  const base = { gdpr, tcf };
  if (regs?.coppa === 1 || age === 'under_13') return { ...base, noAd: 'child', personalized: false, contextualReason: 'minor' };
  if (age === '13_17') {
    if (!publisher.teenContextualAds) return { ...base, noAd: 'teen', personalized: false, contextualReason: 'minor' };
    return { ...base, noAd: null, personalized: false, contextualReason: 'minor' };
  }
  const contextualReason: ContextualReason | null =
    gdpr === 1 && !tcf
      ? 'no_tc_string'
      : tcf && !PERSONALIZATION_PURPOSES.every((p) => tcf.purposeConsent(p))
        ? tcf === tcfCa
          ? 'tcfca_purposes'
          : 'tcf_purposes'
        : gpp?.usOptOut
          ? 'gpp_opt_out'
          : regs?.us_privacy !== undefined && usPrivacyOptOut(regs.us_privacy)
            ? 'us_privacy_opt_out'
            : null;
  return { ...base, noAd: null, personalized: contextualReason === null, contextualReason };
}

/** What a DSP declared at onboarding (`adctl dsp add|update`). */
export interface DspPrivacy {
  /** Its IAB TCF Global Vendor List id; null: not a TCF vendor. */
  tcfVendorId: number | null;
  /** It accepts contextual-only requests (no user id); false: it is not called without consent. */
  bidsWithoutConsent: boolean;
}

/** What one DSP gets: the personalized request, the contextual-only one, or none (not called: `no_consent`). */
export type DspAccess = 'personalized' | 'contextual' | 'none';

/**
 * Where a TC string governs (GDPR, or TCF Canada), a personalized request needs
 * the DSP's own consent: a TCF vendor id the string consents to, with no
 * publisher restriction forbidding it purposes 1, 3 or 4. A DSP without it gets
 * the contextual-only request, or none if it declared it cannot bid without consent.
 */
export function dspAccess(privacy: PrivacyDecision, dsp: DspPrivacy): DspAccess {
  const tcf = privacy.tcf;
  // GDPR without a TC string is never personalized (no_tc_string): no string, no GDPR, no vendor check.
  const consented = privacy.personalized && (tcf === null || (dsp.tcfVendorId !== null && vendorConsented(tcf, dsp.tcfVendorId)));
  if (consented) return 'personalized';
  return dsp.bidsWithoutConsent ? 'contextual' : 'none';
}

function vendorConsented(tcf: TcfConsent, vendorId: number): boolean {
  if (!tcf.vendorConsent(vendorId)) return false;
  for (const purpose of PERSONALIZATION_PURPOSES) if (tcf.vendorRestricted(vendorId, purpose)) return false;
  return true;
}

/** A contextual-only request's IP: what geolocation needs (IPv4 /24, IPv6 /48). */
export const contextualIp = (ip: string): string => truncateIp(ip);

/**
 * A contextual-only native request's `userId` (the spec requires one): a hash
 * of the publisher and the conversation (an opener: the auction), so a DSP can
 * tell one conversation from another and never one user from another.
 */
export function conversationScopedUserId(publisherId: string, chatId: string | undefined, auctionId: string): string {
  return `ctx-${createHash('sha256')
    .update(`contextual\u0000${publisherId}\u0000${chatId ?? auctionId}`)
    .digest('base64url')
    .slice(0, 22)}`;
}
