/**
 * The privacy settings operators set with adctl (issue 48), run as operators
 * run them (the real bin/adctl in a child process): a publisher's teen setting,
 * a DSP's TCF vendor id and whether it bids without consent, at onboarding and after.
 */
import { randomBytes } from 'node:crypto';
import { createDb, type Db } from '../../lib/db';
import { adctl, type AdctlRun } from '../support/cli';

let db: Db;
beforeAll(() => {
  db = createDb(undefined, 2);
});
afterAll(async () => {
  await db.$disconnect();
});

function output<T = any>(run: AdctlRun): T {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(run.stdout) as T;
}
const unique = () => randomBytes(4).toString('hex');

test('publisher update --teen-contextual-ads yes|no: shown, stored, anything else a usage error', async () => {
  const { publisher_id } = output(await adctl('publisher', 'create', '--name', `Teen host ${unique()}`));
  expect(output(await adctl('publisher', 'show', publisher_id)).teen_contextual_ads).toBe(false);
  expect(output(await adctl('publisher', 'update', publisher_id, '--teen-contextual-ads', 'yes')).teen_contextual_ads).toBe(true);
  expect((await db.publisher.findUniqueOrThrow({ where: { publicId: publisher_id } })).teenContextualAds).toBe(true);
  const bad = await adctl('publisher', 'update', publisher_id, '--teen-contextual-ads', 'true');
  expect([bad.code, bad.stdout]).toEqual([2, '']);
  expect(bad.stderr).toMatch(/--teen-contextual-ads must be yes or no/);
  expect(output(await adctl('publisher', 'update', publisher_id, '--teen-contextual-ads', 'no')).teen_contextual_ads).toBe(false);
});

test('dsp add declares the TCF vendor id and whether it bids without consent; dsp update changes them; list shows them', async () => {
  const add = (...flags: string[]) =>
    adctl('dsp', 'add', '--name', `p-${unique()}`, '--protocol', 'openrtb', '--bid-url', 'http://127.0.0.1:9/ortb', '--auth', 'url', ...flags);
  const plain = output(await add());
  const vendor = output(await add('--tcf-vendor-id', '755', '--bids-without-consent', 'no'));
  const { dsps } = output(await adctl('dsp', 'list'));
  const listed = (id: string) => dsps.find((d: any) => d.dsp_id === id);
  expect(listed(plain.dsp_id)).toMatchObject({ tcf_vendor_id: null, bids_without_consent: true });
  expect(listed(vendor.dsp_id)).toMatchObject({ tcf_vendor_id: 755, bids_without_consent: false });

  expect(output(await adctl('dsp', 'update', plain.dsp_id, '--tcf-vendor-id', '32'))).toMatchObject({
    dsp_id: plain.dsp_id,
    tcf_vendor_id: 32,
    bids_without_consent: true,
  });
  expect(output(await adctl('dsp', 'update', vendor.dsp_id, '--tcf-vendor-id', 'none', '--bids-without-consent', 'yes'))).toMatchObject({
    tcf_vendor_id: null,
    bids_without_consent: true,
  });
  expect(await db.dsp.findUniqueOrThrow({ where: { id: vendor.dsp_id } })).toMatchObject({ tcfVendorId: null, bidsWithoutConsent: true });

  // Out of range: the domain's error naming the field, nothing changed; no flag or a bad value: usage errors.
  const outOfRange = await adctl('dsp', 'update', plain.dsp_id, '--tcf-vendor-id', '70000');
  expect([outOfRange.code, outOfRange.stdout]).toEqual([1, '']);
  expect(outOfRange.stderr).toMatch(/tcf_vendor_id/);
  expect((await db.dsp.findUniqueOrThrow({ where: { id: plain.dsp_id } })).tcfVendorId).toBe(32);
  expect((await adctl('dsp', 'update', plain.dsp_id)).code).toBe(2);
  expect((await adctl('dsp', 'update', plain.dsp_id, '--bids-without-consent', 'maybe')).code).toBe(2);
  expect((await adctl('dsp', 'update', plain.dsp_id, '--tcf-vendor-id', '0x10')).code).toBe(2);
  const unknown = await adctl('dsp', 'update', '00000000-0000-4000-8000-000000000000', '--tcf-vendor-id', '1');
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toMatch(/No such DSP/);
  for (const id of [plain.dsp_id, vendor.dsp_id]) await adctl('dsp', 'disable', id);
});
