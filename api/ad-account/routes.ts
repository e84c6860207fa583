import { z } from 'zod';
import type { Db } from '../../lib/db';
import { accountDisplay, findDefaultAdAccount } from '../../domain/ad-accounts/account';
import { notFound } from '../../domain/errors';
import { defineOperation, type Operation } from '../../lib/http/operations';
import { organizationOf } from '../auth/api-key-auth';

export const adAccountSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  url: z.string(),
  timezone: z.literal('UTC'),
  currency_code: z.literal('USD'),
  preview_url: z.string().optional(),
});

type AdAccountRow = { id: string; name: string; url: string | null; logoUrl: string | null };

export function presentAdAccount(account: AdAccountRow, organizationDomain: string | null): z.infer<typeof adAccountSchema> {
  return {
    id: account.id,
    ...accountDisplay(account, organizationDomain),
    timezone: 'UTC',
    currency_code: 'USD',
    ...(account.logoUrl ? { preview_url: account.logoUrl } : {}),
  };
}

export function adAccountOperations(db: Db): Operation[] {
  return [
    defineOperation({
      id: 'getAdAccount',
      method: 'get',
      path: '/v1/ad_account',
      tag: 'Ad account',
      auth: 'apiKey',
      summary: "The organization's default ad account",
      success: { status: 200, description: 'Ad account', schema: adAccountSchema },
      errors: ['not_found'],
      handle: async (_input, _req, res) => {
        const account = await findDefaultAdAccount(db, organizationOf(res));
        if (!account) throw notFound('ad account');
        return presentAdAccount(account, account.organization.domain);
      },
    }),
  ];
}
