import type { Db } from '../../lib/db';
import { DomainError, invalidValue, notFound, required } from '../errors';
import { recordChange } from '../audit/log';

/**
 * DSP configurations: the external bidders the auction calls. The key is OUR
 * credential at the DSP (sent as a bearer token), so it is stored as given, not
 * hashed; `dsp list` never prints it.
 */
export type DspProtocol = 'native' | 'openrtb';
export type DspAuthStyle = 'bearer' | 'url';

export interface NewDsp {
  name: string;
  protocol: string;
  bidUrl: string;
  renderUrl?: string;
  key?: string;
  authStyle?: string;
  siteIdOverride?: string;
  publisherIdOverride?: string;
  /** Its IAB TCF Global Vendor List id (1..65535); absent: not a TCF vendor. */
  tcfVendorId?: number;
  /** It accepts contextual-only requests (default true); false: not called without the user's consent. */
  bidsWithoutConsent?: boolean;
}

function httpUrl(value: string, param: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidValue(param, `${param} must be an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidValue(param, `${param} must use http or https`);
  return url.toString();
}

export async function addDsp(db: Db, input: NewDsp) {
  if (!input.name?.trim()) throw required('name');
  if (input.protocol !== 'native' && input.protocol !== 'openrtb') throw invalidValue('protocol', 'protocol must be native or openrtb');
  const authStyle = input.authStyle ?? 'bearer';
  if (authStyle !== 'bearer' && authStyle !== 'url') throw invalidValue('auth', 'auth must be bearer or url');
  if (input.protocol === 'native' && authStyle !== 'bearer') throw invalidValue('auth', 'the native protocol always uses a bearer key');
  if (!input.bidUrl) throw required('bid_url');
  const bidUrl = httpUrl(input.bidUrl, 'bid_url');
  if (input.protocol === 'native' && !input.renderUrl) throw required('render_url', 'render_url is required for the native protocol');
  if (input.protocol === 'native' && !input.key) throw required('key', 'key is required for the native protocol (bearer)');
  if (input.protocol === 'openrtb' && authStyle === 'bearer' && !input.key) throw required('key', 'key is required for bearer auth');
  const renderUrl = input.renderUrl ? httpUrl(input.renderUrl, 'render_url') : null;
  const dsp = await db.$transaction(async (tx) => {
    const created = await tx.dsp.create({
      data: {
        name: input.name.trim(),
        protocol: input.protocol,
        bidUrl,
        renderUrl,
        apiKey: input.key ?? null,
        authStyle,
        siteIdOverride: input.siteIdOverride ?? null,
        publisherIdOverride: input.publisherIdOverride ?? null,
        ...dspPrivacyData({ tcfVendorId: input.tcfVendorId, bidsWithoutConsent: input.bidsWithoutConsent }),
      },
    });
    await recordChange(tx, { organizationId: null, entity: { type: 'dsp', id: created.id }, action: 'created', before: null, after: created });
    return created;
  });
  return { dsp_id: dsp.id };
}

type DspRow = Awaited<ReturnType<Db['dsp']['findMany']>>[number];

export const presentDsp = (d: DspRow) => ({
  dsp_id: d.id,
  name: d.name,
  protocol: d.protocol,
  bid_url: d.bidUrl,
  render_url: d.renderUrl,
  auth: d.authStyle,
  has_key: d.apiKey !== null,
  enabled: d.enabled,
  site_id_override: d.siteIdOverride,
  publisher_id_override: d.publisherIdOverride,
  tcf_vendor_id: d.tcfVendorId,
  bids_without_consent: d.bidsWithoutConsent,
  created_at: d.createdAt.toISOString(),
});

export async function listDsps(db: Db) {
  return (await db.dsp.findMany({ orderBy: { createdAt: 'asc' } })).map(presentDsp);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function disableDsp(db: Db, dspId: string) {
  if (!UUID.test(dspId)) throw notFound('DSP', 'dsp_id');
  const id = dspId.toLowerCase();
  const found = await db.$transaction(async (tx) => {
    const before = await tx.dsp.findUnique({ where: { id }, select: { enabled: true } });
    if (!before) return false;
    await tx.dsp.update({ where: { id }, data: { enabled: false } });
    await recordChange(tx, { organizationId: null, entity: { type: 'dsp', id }, action: 'disabled', before, after: { enabled: false } });
    return true;
  });
  if (!found) throw notFound('DSP', 'dsp_id');
  return { dsp_id: dspId.toLowerCase(), enabled: false as const };
}

/** What the auction keeps in memory per enabled DSP. */
export interface DspConfig {
  id: string;
  name: string;
  protocol: DspProtocol;
  bidUrl: string;
  renderUrl: string | null;
  apiKey: string | null;
  authStyle: DspAuthStyle;
  siteIdOverride: string | null;
  publisherIdOverride: string | null;
  /** What it declared at onboarding (domain/privacy's dspAccess): its TCF vendor id, and whether it bids without consent. */
  tcfVendorId: number | null;
  bidsWithoutConsent: boolean;
}

export async function loadEnabledDsps(db: Db): Promise<DspConfig[]> {
  const rows = await db.dsp.findMany({ where: { enabled: true }, orderBy: { createdAt: 'asc' } });
  return rows.map((d) => ({
    id: d.id,
    name: d.name,
    protocol: d.protocol as DspProtocol,
    bidUrl: d.bidUrl,
    renderUrl: d.renderUrl,
    apiKey: d.apiKey,
    authStyle: d.authStyle as DspAuthStyle,
    siteIdOverride: d.siteIdOverride,
    publisherIdOverride: d.publisherIdOverride,
    tcfVendorId: d.tcfVendorId,
    bidsWithoutConsent: d.bidsWithoutConsent,
  }));
}

/** What a DSP declares about consent (domain/privacy): its TCF vendor id (null: none) and whether it bids without consent. */
export interface DspPrivacyInput {
  tcfVendorId?: number | null;
  bidsWithoutConsent?: boolean;
}

/** Checks the declaration; the result holds only what was given (Prisma's data). */
function dspPrivacyData(input: DspPrivacyInput): { tcfVendorId?: number | null; bidsWithoutConsent?: boolean } {
  const id = input.tcfVendorId;
  if (id !== undefined && id !== null && (!Number.isInteger(id) || id < 1 || id > 65_535))
    throw invalidValue('tcf_vendor_id', 'tcf_vendor_id must be an IAB TCF Global Vendor List id (an integer from 1 to 65535)');
  return {
    ...(id !== undefined ? { tcfVendorId: id } : {}),
    ...(input.bidsWithoutConsent !== undefined ? { bidsWithoutConsent: input.bidsWithoutConsent } : {}),
  };
}

/** `adctl dsp update`: its consent declaration; the auctions pick it up within a second (the `auction_index` notification). */
export async function updateDspPrivacy(db: Db, dspId: string, input: DspPrivacyInput) {
  if (!UUID.test(dspId)) throw notFound('DSP', 'dsp_id');
  const data = dspPrivacyData(input);
  const id = dspId.toLowerCase();
  const updated = await db.$transaction(async (tx) => {
    // Read under the row lock, so the audit entry's before is what this update replaced.
    await tx.$queryRaw`SELECT id FROM dsps WHERE id = ${id}::uuid FOR UPDATE`;
    const before = await tx.dsp.findUnique({ where: { id } });
    if (!before) return null;
    const after = await tx.dsp.update({ where: { id }, data });
    await recordChange(tx, { organizationId: null, entity: { type: 'dsp', id }, action: 'updated', before, after });
    return after;
  });
  if (!updated) throw notFound('DSP', 'dsp_id');
  return presentDsp(updated);
}

export { DomainError };
