import type { DspConfig } from '../../domain/dsps';
import type { IndexedAd } from '../inhouse/ad-index';
import type { InhouseDeps } from '../inhouse/bidder';
import type { AuctionSettings } from '../settings';
import type { Bidder } from './bidder';
import { inhouseBidder } from './inhouse';
import { nativeBidder } from './native';
import { openrtbBidder } from './openrtb';

/** A configured DSP's bidder, by its protocol: the one place that asks. */
export const dspBidder = (dsp: DspConfig, settings: Pick<AuctionSettings, 'renderReserveMs'>): Bidder =>
  dsp.protocol === 'native' ? nativeBidder(dsp, settings.renderReserveMs) : openrtbBidder(dsp);

/**
 * The bidders of every auction: the enabled DSPs' and ours (last: it answers
 * from memory while the calls are in flight). Rebuilt only when the DSP list changes.
 */
export function auctionBidders(dsps: () => readonly DspConfig[], ads: () => readonly IndexedAd[], inhouse: InhouseDeps, settings: AuctionSettings) {
  const own = inhouseBidder(ads, inhouse) as Bidder;
  let builtFor: readonly DspConfig[] | null = null;
  let bidders: readonly Bidder[] = [own];
  return (): readonly Bidder[] => {
    const current = dsps();
    if (current !== builtFor) {
      builtFor = current;
      bidders = [...current.map((dsp) => dspBidder(dsp, settings)), own];
    }
    return bidders;
  };
}
