import type { Db } from '../../lib/db';
import { loadParticipation } from '../../domain/serving/pacing-store';

/**
 * The pacing plan as the in-house bidder reads it: each campaign's
 * participation, refreshed from `campaign_pacing` every `refreshMs` (never per
 * request). A campaign without a fresh plan bids on every eligible request.
 *
 * Every indexed ad holds its campaign's `CampaignPacing` object (adopt(), on
 * each index load), and a refresh writes the new participation into those
 * objects: the bidder reads a field per ad, no lookup.
 */
export interface CampaignPacing {
  participation: number;
}

export const unpaced = (): CampaignPacing => ({ participation: 1 });

export class PacingGate {
  private byCampaign = new Map<string, CampaignPacing>();
  private plan = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private readStartedAt = 0;

  constructor(
    private readonly db: Db,
    private readonly refreshMs: number,
  ) {}

  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => {
      void this.refresh();
    }, this.refreshMs);
    this.timer.unref();
  }

  /** Reads the plan and applies it; a call while a read is out joins that read, so a slow old read never lands after a newer one. */
  refresh(): Promise<void> {
    this.inFlight ??= this.readAndApply().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async readAndApply(): Promise<void> {
    const startedAt = Date.now();
    try {
      this.plan = await loadParticipation(this.db);
      this.readStartedAt = startedAt;
    } catch (err) {
      console.error(`auction: pacing plan refresh failed, keeping the last one: ${(err as Error).message}`);
    }
    for (const [campaignId, pacing] of this.byCampaign) pacing.participation = this.plan.get(campaignId) ?? 1;
  }

  /** Gives each ad of a freshly loaded index its campaign's pacing object (bounded by the index: others are forgotten). */
  adopt(ads: readonly { campaignId: string; pacing: CampaignPacing }[]): void {
    const next = new Map<string, CampaignPacing>();
    for (const ad of ads) {
      let pacing = next.get(ad.campaignId) ?? this.byCampaign.get(ad.campaignId);
      if (!pacing) pacing = { participation: this.plan.get(ad.campaignId) ?? 1 };
      next.set(ad.campaignId, pacing);
      ad.pacing = pacing;
    }
    this.byCampaign = next;
  }

  /** When the plan applied now began to be read (epoch ms; 0: never read): every change written before it is applied. */
  get planReadAt(): number {
    return this.readStartedAt;
  }

  /** Campaigns held back now (participation < 1). */
  get heldBack(): number {
    return this.plan.size;
  }

  /** The campaign's participation as this process applies it (1: not held back). */
  participationOf(campaignId: string): number {
    return this.byCampaign.get(campaignId)?.participation ?? this.plan.get(campaignId) ?? 1;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
  }
}

/** Whether this request may go to the campaign: a random draw against its participation. */
export const admits = (pacing: CampaignPacing): boolean => pacing.participation >= 1 || Math.random() < pacing.participation;
