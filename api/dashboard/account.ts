/**
 * The dashboard's Account page endpoints: the organization's website, logo and
 * default card (domain/ad-accounts/settings.ts, which `adctl org update` calls
 * too). Every member may read them, so a member sees why an ad lacks a landing
 * page or logo; only owners and admins change them (a member's change is 403
 * `insufficient_role`), and only they see the card's payment method id.
 */
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { AssetStore } from '../../lib/asset-store';
import type { Db } from '../../lib/db';
import type { Operation } from '../../lib/http/operations';
import { accountChanges, accountSettings, accountUpdateSchema, updateAccount, type AccountSettings } from '../../domain/ad-accounts/settings';
import { DomainError } from '../../domain/errors';
import type { Role } from '../../domain/organizations/service';
import { MAX_UPLOAD_BYTES } from '../../domain/uploads/image-inspect';
import { readFilePart } from '../uploads/multipart';
import { dashboardOperation } from './operation';
import { memberOf } from './session-cookie';

const editors: Role[] = ['owner', 'admin'];

export const accountViewSchema = z.object({
  org_public_id: z.uuid(),
  name: z.string(),
  domain: z.string().nullable(),
  ad_account: z
    .object({
      id: z.uuid(),
      name: z.string(),
      website: z.string().nullable().describe("The account's own website; null when none is set"),
      url: z.string().describe("As GET /v1/ad_account reads it: the website, else the organization's domain"),
      preview_url: z.string().nullable().describe('The logo URL (GET /v1/ad_account `preview_url`)'),
      logo_path: z.string().nullable().describe("A stored logo's same-origin path"),
    })
    .nullable()
    .describe('The default ad account; null when the organization has none'),
  billing_configured: z.boolean().describe('Whether a default card is set (campaign creates need one)'),
  payment_method_id: z.string().nullable().describe('The default card (owners and admins; null for members)'),
  can_edit: z.boolean().describe('Whether the signed-in member may change these settings (owners and admins)'),
});

/** What the signed-in member sees of the settings. */
function viewFor(settings: AccountSettings, role: Role): z.infer<typeof accountViewSchema> {
  const canEdit = editors.includes(role);
  return {
    org_public_id: settings.org_public_id,
    name: settings.name,
    domain: settings.domain,
    ad_account: settings.ad_account,
    billing_configured: settings.payment_method_id !== null,
    payment_method_id: canEdit ? settings.payment_method_id : null,
    can_edit: canEdit,
  };
}

/** The logo of a multipart request (one `file` part, at most 5 MB; nothing else). */
async function logoFile(req: Request, res: Response): Promise<Buffer> {
  if (!req.is('multipart/form-data')) throw new DomainError('unsupported_media_type', 'Send the logo as multipart/form-data with a `file` part');
  // A failed read leaves the client mid-body: close rather than reuse the socket.
  const part = await readFilePart(req, { maxBytes: MAX_UPLOAD_BYTES }).catch((err) => {
    res.set('Connection', 'close');
    throw err;
  });
  if (part.otherFields.length > 0) throw new DomainError('invalid_value', `Unknown parameter: ${part.otherFields[0]}`, part.otherFields[0]);
  return part.bytes;
}

export function accountOperations(deps: { db: Db; assets: AssetStore }): Operation[] {
  const { db } = deps;
  const settingsDeps = { db, store: deps.assets };
  return [
    dashboardOperation({
      id: 'dashboardAccount',
      method: 'get',
      path: `/account`,
      summary: "The organization's website, logo and default card (every member; the card's id for owners and admins)",
      success: { status: 200, description: 'The account settings', schema: accountViewSchema },
      handle: async (_input, _req, res) => {
        const member = memberOf(res);
        return viewFor(await accountSettings(db, member.organizationId), member.role);
      },
    }),
    dashboardOperation({
      id: 'dashboardUpdateAccount',
      method: 'post',
      path: `/account`,
      body: accountUpdateSchema,
      summary: 'Set the website or the default card (owners and admins); fields left out stay as they are',
      success: { status: 200, description: 'The account settings after the change', schema: accountViewSchema },
      errors: ['invalid_value', 'string_too_long', 'no_ad_account'],
      handle: async ({ body }, _req, res) => {
        const member = memberOf(res, editors);
        return viewFor(await updateAccount(settingsDeps, member.organizationId, accountChanges(body)), member.role);
      },
    }),
    dashboardOperation({
      id: 'dashboardUploadAccountLogo',
      method: 'post',
      path: `/account/logo`,
      summary: "Upload the account's logo (owners and admins): PNG, JPEG or WebP, at most 5 MB; chat cards show it in text placements",
      rawBody: { 'multipart/form-data': z.strictObject({ file: z.string().meta({ format: 'binary' }) }) },
      success: { status: 200, description: 'The account settings with the new logo', schema: accountViewSchema },
      errors: ['invalid_value', 'invalid_file', 'file_too_large', 'unsupported_mimetype', 'unsupported_media_type', 'no_ad_account'],
      handle: async (_input, req, res) => {
        const member = memberOf(res, editors);
        const file = await logoFile(req, res);
        return viewFor(await updateAccount(settingsDeps, member.organizationId, { logo: { file } }), member.role);
      },
    }),
  ];
}
