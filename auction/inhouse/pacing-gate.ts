import type { Db } from '../../lib/db';
import { loadParticipation } from '../../domain/serving/pacing-store';

/**
 * The pacing plan as the in-house bidder reads it: each paced campaign's
 * participation, refreshed from `campaign_pacing` every `refreshMs` (never per
 * request). A campaign without a fresh plan bids on every eligible request.
 */
export class PacingGate {
  private participation = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;

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

  async refresh(): Promise<void> {
    try {
      this.participation = await loadParticipation(this.db);
    } catch (err) {
      console.error(`auction: pacing plan refresh failed, keeping the last one: ${(err as Error).message}`);
    }
  }

  /** Whether this request may go to the campaign: a random draw against its participation. */
  admits(campaignId: string): boolean {
    const p = this.participation.get(campaignId);
    return p === undefined || Math.random() < p;
  }

  /** The campaign's participation as this process applies it (1: not held back). */
  participationOf(campaignId: string): number {
    return this.participation.get(campaignId) ?? 1;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
