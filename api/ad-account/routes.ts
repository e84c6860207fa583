import { Router } from 'express';
import { z } from 'zod';
import type { Db } from '../../lib/db';
import { apiKeyAuthOf } from '../auth/api-key-auth';
import { notFound } from '../../domain/errors';
import { documentRoute } from '../../lib/http/openapi';

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
    name: account.name,
    url: account.url ?? organizationDomain ?? '',
    timezone: 'UTC',
    currency_code: 'USD',
    ...(account.logoUrl ? { preview_url: account.logoUrl } : {}),
  };
}

/** The organization's default ad account, or null when it has none. */
export function findDefaultAdAccount(db: Db, organizationId: string) {
  return db.adAccount.findFirst({
    where: { organizationId, isDefault: true },
    include: { organization: { select: { domain: true } } },
  });
}

documentRoute({
  method: 'get', path: '/v1/ad_account', tag: 'Ad account', auth: 'apiKey', summary: "The organization's default ad account",
  responses: { 200: { description: 'Ad account', schema: adAccountSchema }, 404: { description: 'not_found: the organization has no ad account' } },
});

export function adAccountRoutes(db: Db): Router {
  const router = Router();
  router.get('/v1/ad_account', async (_req, res) => {
    const account = await findDefaultAdAccount(db, apiKeyAuthOf(res).organizationId);
    if (!account) throw notFound('ad account');
    res.json(presentAdAccount(account, account.organization.domain));
  });
  return router;
}
