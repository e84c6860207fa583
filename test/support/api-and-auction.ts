import { startAuction, type AuctionHarness } from '../auction/support';
import { startHarness, type Harness } from './harness';

/**
 * An api harness and an auction for the tests around the call (as useHarness:
 * filled in by beforeAll; `auction`: startAuction's arguments). Campaigns pushed onto `live` are paused again
 * afterwards, so other files' auctions never see them.
 */
export function useApiAndAuction(...auction: Parameters<typeof startAuction>): { api: Harness; h: AuctionHarness; live: string[] } {
  const api = {} as Harness;
  const h = {} as AuctionHarness;
  const live: string[] = [];
  beforeAll(async () => {
    Object.assign(api, await startHarness());
    Object.assign(h, await startAuction(...auction));
  });
  afterAll(async () => {
    await api.db.campaign.updateMany({ where: { id: { in: live } }, data: { status: 'paused' } });
    await h.close();
    await api.close();
  });
  return { api, h, live };
}
