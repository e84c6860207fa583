/**
 * Real consent strings for tests, encoded by IAB Tech Lab's own libraries (the
 * ones the auction decodes with): TCF v2.2 TC strings over a small vendor list,
 * GPP strings with usnat, a state's, uspv1, tcfeuv2 and tcfcav1 sections.
 */
import { GVL, PurposeRestriction, RestrictionType, TCModel, TCString } from '@iabtechlabtcf/core';
import { GppModel, RangeEntry } from '@iabgpp/cmpapi';

const purpose = (id: number) => [id, { id, name: `purpose ${id}`, description: '', illustrations: [] }];
const vendor = (id: number) => [
  id,
  { id, name: `vendor ${id}`, purposes: [1, 3, 4], legIntPurposes: [], flexiblePurposes: [], specialPurposes: [], features: [], specialFeatures: [], urls: [] },
];

/** A vendor list of its own (no download): vendors 32, 755 and 1000, purposes 1 to 11, both special features. */
function vendorList() {
  return new GVL({
    gvlSpecificationVersion: 3,
    vendorListVersion: 100,
    tcfPolicyVersion: 5,
    lastUpdated: '2026-01-01T00:00:00Z',
    purposes: Object.fromEntries([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map(purpose)),
    specialPurposes: {},
    features: {},
    specialFeatures: Object.fromEntries([1, 2].map((id) => [id, { id, name: `special feature ${id}`, description: '' }])),
    stacks: {},
    vendors: Object.fromEntries([32, 755, 1000].map(vendor)),
  });
}

export interface TcOptions {
  purposes?: number[];
  vendors?: number[];
  /** Vendor ids a publisher restriction forbids purpose 1 (restriction type 0). */
  restrictPurposeOne?: number[];
}

/** A TCF v2.2 TC string (policy version 5): consent to `purposes` and `vendors`. */
export function tcString({ purposes = [1, 3, 4], vendors = [], restrictPurposeOne = [] }: TcOptions = {}): string {
  const model = new TCModel(vendorList());
  model.cmpId = 10;
  model.cmpVersion = 1;
  model.consentScreen = 1;
  model.isServiceSpecific = true;
  model.purposeConsents.set(purposes);
  model.vendorConsents.set(vendors);
  for (const id of restrictPurposeOne) model.publisherRestrictions.add(id, new PurposeRestriction(1, RestrictionType.NOT_ALLOWED));
  return TCString.encode(model);
}

/** A GPP string with the given sections' fields (`{ usnat: { SaleOptOut: 1 } }`). */
export function gppString(sections: Record<string, Record<string, unknown>>): string {
  const model = new GppModel();
  for (const [section, fields] of Object.entries(sections)) for (const [field, value] of Object.entries(fields)) model.setFieldValue(section, field, value);
  return model.encode();
}

/** A GPP string whose tcfeuv2 section is this TC string. */
export function gppWithTcString(tc: string): string {
  const model = new GppModel();
  model.decodeSection('tcfeuv2', tc);
  return model.encode();
}

/**
 * A GPP string with a TCF Canada (tcfcav1) section: express consent to `purposes` and `vendors`,
 * implied consent to `implied` purposes, publisher restrictions forbidding `restrictPurposeOne` purpose 1.
 */
export function gppTcfCanada({ purposes = [1, 3, 4], vendors = [], implied = [], restrictPurposeOne = [] }: TcOptions & { implied?: number[] } = {}): string {
  const bits = (ids: number[]) => Array.from({ length: 24 }, (_, i) => ids.includes(i + 1));
  const model = new GppModel();
  model.setFieldValue('tcfcav1', 'CmpId', 10);
  model.setFieldValue('tcfcav1', 'PurposesExpressConsent', bits(purposes));
  model.setFieldValue('tcfcav1', 'PurposesImpliedConsent', bits(implied));
  model.setFieldValue('tcfcav1', 'VendorExpressConsent', vendors);
  if (restrictPurposeOne.length) model.setFieldValue('tcfcav1', 'PubRestrictions', [new RangeEntry(1, RestrictionType.NOT_ALLOWED, restrictPurposeOne)]);
  return model.encode();
}
