import type { Prisma } from '../../lib/db';

/** The campaign tree as stored: what services return and presenters read. */
export type CampaignRow = Prisma.CampaignModel;
export type AdGroupRow = Prisma.AdGroupModel;

/** What an ad's read-back needs besides its row: its image and its campaign's review. */
export const adInclude = {
  asset: { select: { sha256: true, ext: true } },
  adGroup: { select: { campaign: { select: { reviewStatus: true } } } },
} satisfies Prisma.AdInclude;
export type AdRow = Prisma.AdGetPayload<{ include: typeof adInclude }>;
