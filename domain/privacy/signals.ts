import { RestrictionType, TCString } from '@iabtechlabtcf/core';
import { GppModel, Sections, type RangeEntry } from '@iabgpp/cmpapi';
import { invalidValue } from '../errors';

/**
 * The chat host's consent strings, decoded with IAB Tech Lab's own libraries
 * (never by hand): TCF v2 TC strings with `@iabtechlabtcf/core`, GPP strings
 * with `@iabgpp/cmpapi` (its tcfeuv2 and tcfcav1 sections with their publisher
 * restrictions); US Privacy is IAB's four-character `1YNN` string. A
 * string that does not decode is the request's 400 `invalid_value` on its field.
 * Each is decoded at most once per request, and only when it is sent
 * (domain/privacy/index.ts).
 */

/** What a TC string (or GPP's tcfeuv2 section) says, as the privacy decision reads it. */
export interface TcfConsent {
  /** The user consented to this purpose (1 store and access information on a device, 3 create profiles, 4 use profiles, ...). */
  purposeConsent(purpose: number): boolean;
  /** The user consented to this vendor (its Global Vendor List id). */
  vendorConsent(vendorId: number): boolean;
  /** A publisher restriction forbids this vendor this purpose (restriction type 0, "not allowed"). */
  vendorRestricted(vendorId: number, purpose: number): boolean;
}

export function decodeTcString(raw: string, param: string): TcfConsent {
  let model: ReturnType<typeof TCString.decode>;
  try {
    model = TCString.decode(raw);
  } catch {
    throw invalidValue(param, `${param} is not a TCF v2.2 TC string`);
  }
  if (model.version !== 2) throw invalidValue(param, `${param} is a TCF v${String(model.version)} string: TCF v2.2 is required`);
  return {
    purposeConsent: (purpose) => model.purposeConsents.has(purpose),
    vendorConsent: (vendorId) => model.vendorConsents.has(vendorId),
    vendorRestricted: (vendorId, purpose) => model.publisherRestrictions.getRestrictionType(vendorId, purpose) === RestrictionType.NOT_ALLOWED,
  };
}

/** US Privacy (CCPA) string: version 1, then notice given, opted out of sale, LSPA covered: each Y, N or - (not applicable). */
export const US_PRIVACY = /^1[YNyn-]{3}$/;

/** Whether a US Privacy string says the user opted out of the sale of their personal information. */
export const usPrivacyOptOut = (usPrivacy: string): boolean => usPrivacy[2] === 'Y' || usPrivacy[2] === 'y';

/** What the applicable sections of a GPP string say. */
export interface GppSignals {
  /** The section ids that apply: `gpp_sid`'s, else every section of the string. */
  applicable: readonly number[];
  /** The first applicable US section (uspv1, usnat or a state's) that opts the user out, or null. */
  usOptOut: string | null;
  /** The applicable tcfeuv2 section, or null. */
  tcf: TcfConsent | null;
  /** The applicable tcfcav1 section (TCF Canada), or null. */
  tcfCa: TcfConsent | null;
}

const TCF_EU_V2 = 2;
const TCF_CA_V1 = 5;
const USP_V1 = 6;
/** MSPA opt-out fields (usnat and the states'): 1 opted out, 2 did not, 0 not applicable. */
const OPTED_OUT = 1;
const US_OPT_OUTS = ['SaleOptOut', 'SharingOptOut', 'TargetedAdvertisingOptOut'] as const;

/**
 * Decodes `raw` and every section it carries (a section that does not decode
 * is refused, applicable or not); `sid` must name sections the string has.
 */
export function decodeGpp(raw: string, sid: readonly number[] | undefined): GppSignals {
  const model = new GppModel();
  let ids: number[];
  const sections = new Map<number, Record<string, unknown>>();
  try {
    model.decode(raw);
    ids = model.getSectionIds() as number[];
    // Sections decode lazily: each is read here, so a malformed one is refused now (one the library does not know yet is left unread).
    for (const id of ids) {
      const name = Sections.SECTION_ID_NAME_MAP.get(id);
      if (name) sections.set(id, model.getSection(name) as Record<string, unknown>);
    }
  } catch {
    throw invalidValue('regs.gpp', 'regs.gpp is not a GPP string');
  }
  if (ids.length === 0) throw invalidValue('regs.gpp', 'regs.gpp holds no section');
  const missing = sid?.find((id) => !ids.includes(id));
  if (missing !== undefined) throw invalidValue('regs.gpp_sid', `regs.gpp_sid names section ${missing}, which regs.gpp does not hold`);
  const applicable = sid ?? ids;
  let usOptOut: string | null = null;
  let tcf: TcfConsent | null = null;
  let tcfCa: TcfConsent | null = null;
  for (const id of applicable) {
    const section = sections.get(id);
    const name = Sections.SECTION_ID_NAME_MAP.get(id);
    if (!section || !name) continue;
    if (id === TCF_EU_V2) tcf = gppTcf(section.PurposeConsents, section.VendorConsents, section.PublisherRestrictions);
    // TCF Canada: express consent only, as TCF EU reads consent only (implied consent, like legitimate interest, does not personalize).
    else if (id === TCF_CA_V1) tcfCa = gppTcf(section.PurposesExpressConsent, section.VendorExpressConsent, section.PubRestrictions);
    else if (id === USP_V1) {
      if (section.OptOutSale === 'Y') usOptOut ??= name;
    } else if (name.startsWith('us')) {
      // usnat and the states' sections: an opt-out of sale, sharing or targeted advertising, or a Global Privacy Control signal.
      if (US_OPT_OUTS.some((field) => section[field] === OPTED_OUT) || section.Gpc === true) usOptOut ??= name;
    }
  }
  return { applicable, usOptOut, tcf, tcfCa };
}

/** Publisher restriction type 0: the vendor may not process the purpose (TCF EU and Canada alike). */
const NOT_ALLOWED = 0;

/**
 * A GPP TCF section (tcfeuv2, or tcfcav1's express consents) read as a TC
 * string: purpose consents (a bitfield from purpose 1), vendor consents (ids)
 * and the publisher restrictions (the library's RangeEntry: purpose, type, vendor ids).
 */
function gppTcf(purposeBits: unknown, vendorIds: unknown, restrictions: unknown): TcfConsent {
  const purposes = Array.isArray(purposeBits) ? (purposeBits as unknown[]) : [];
  const vendors = new Set(Array.isArray(vendorIds) ? (vendorIds as number[]) : []);
  const forbidden = new Set<string>();
  for (const entry of Array.isArray(restrictions) ? (restrictions as RangeEntry[]) : []) {
    if (entry.getType() !== NOT_ALLOWED) continue;
    for (const vendorId of entry.getIds()) forbidden.add(`${vendorId}:${entry.getKey()}`);
  }
  return {
    purposeConsent: (purpose) => purposes[purpose - 1] === true,
    vendorConsent: (vendorId) => vendors.has(vendorId),
    vendorRestricted: (vendorId, purpose) => forbidden.has(`${vendorId}:${purpose}`),
  };
}
