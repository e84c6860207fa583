import { Client } from 'pg';
import type { Db } from '../lib/db';
import { config } from '../lib/config';
import { loadEnabledDsps, type DspConfig } from '../domain/dsps';
import { loadEnabledPublishers, type PublisherRecord } from '../domain/publishers';
import { inScope, INDEX_PAGE_SIZE, loadIndexedAds, type IndexedAd, type IndexScope } from './inhouse/ad-index';

/**
 * What the hot path reads, all in memory: publishers by key hash, enabled
 * DSPs, and the ad index. A LISTEN connection on `auction_index` (triggers in
 * the migrations) reloads the changed part within milliseconds (debounced):
 * a change that names its campaign or ad account (`table:id`) reloads only
 * those ads, so a change reaches the index in one small query however large
 * the index; a slow safety-net reload of everything covers a lost connection.
 * Requests never query.
 */
const DEBOUNCE_MS = 50;
/** Past this many campaigns and accounts in one reload, reading the whole index is cheaper. */
const MAX_SCOPED = 200;
type Part = 'ads' | 'publishers' | 'dsps';
const PART_OF_TABLE: Record<string, Part> = {
  campaigns: 'ads',
  ad_groups: 'ads',
  ads: 'ads',
  ad_accounts: 'ads',
  campaign_spend: 'ads',
  publishers: 'publishers',
  dsps: 'dsps',
};

export class Catalog {
  publishers = new Map<string, PublisherRecord>();
  dsps: DspConfig[] = [];
  ads: IndexedAd[] = [];
  /** Date.now() of the last successful ad-index load. */
  adsLoadedAt = 0;
  private listener: Client | null = null;
  private pending = new Set<Part>();
  private pendingScope = emptyScope();
  private timer: NodeJS.Timeout | null = null;
  private safety: NodeJS.Timeout | null = null;
  private reloading: Promise<void> = Promise.resolve();
  private running = false;
  private closed = false;
  private readonly loadAds: (scope?: IndexScope) => Promise<IndexedAd[]>;

  constructor(
    private readonly db: Db,
    private readonly opts: {
      databaseUrl?: string;
      safetyReloadMs: number;
      dspFilter?: (dsp: DspConfig) => boolean;
      /** Runs before a fresh index replaces `ads` (awaited: what it builds for the new ads is ready when they serve). */
      onAdsLoaded?: (ads: IndexedAd[]) => void | Promise<void>;
      /** The index's read, the whole of it or a scope's part (loadIndexedAds by default). */
      loadAds?: (scope?: IndexScope) => Promise<IndexedAd[]>;
    },
  ) {
    this.loadAds = opts.loadAds ?? ((scope) => loadIndexedAds(db, INDEX_PAGE_SIZE, scope));
  }

  async start(): Promise<void> {
    await this.listen();
    await this.reload(['ads', 'publishers', 'dsps']);
    this.safety = setInterval(() => this.schedule(['ads', 'publishers', 'dsps']), this.opts.safetyReloadMs);
    this.safety.unref();
  }

  private async listen() {
    const client = new Client({ connectionString: this.opts.databaseUrl ?? config.databaseUrl });
    client.on('notification', (msg) => this.onChange(msg.payload ?? ''));
    client.on('error', () => this.reconnect(client));
    client.on('end', () => this.reconnect(client));
    await client.connect();
    await client.query('LISTEN auction_index');
    this.listener = client;
  }

  private reconnect(old: Client) {
    if (this.closed || this.listener !== old) return;
    this.listener = null;
    setTimeout(() => {
      if (this.closed) return;
      // Changes may have been missed while disconnected: reload everything once listening again.
      this.listen()
        .then(() => this.schedule(['ads', 'publishers', 'dsps']))
        .catch(() => this.reconnect(old));
    }, 1000).unref();
  }

  /** `table`: reload its part. `table:id`: reload the ads of that campaign (of that ad account for `ad_accounts`). */
  private onChange(payload: string) {
    const [table, id] = payload.split(':', 2);
    const part = PART_OF_TABLE[table];
    if (!part) return;
    if (part !== 'ads' || !id) return this.schedule([part]);
    (table === 'ad_accounts' ? this.pendingScope.adAccountIds : this.pendingScope.campaignIds).add(id);
    this.schedule([]);
  }

  /**
   * At most one reload runs and at most one waits: what changes while a reload
   * runs is gathered into the next one. (Chaining a reload per debounce window
   * queued them without bound while changes kept coming faster than a reload of
   * a large index took, and a publisher change waited behind all of them.)
   */
  private schedule(parts: Part[]) {
    for (const p of parts) this.pending.add(p);
    if (this.timer || this.running) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.reloading = this.reloadPending();
    }, DEBOUNCE_MS);
  }

  private async reloadPending() {
    this.running = true;
    try {
      while ((this.pending.size > 0 || scopeSize(this.pendingScope) > 0) && !this.closed) {
        const todo = [...this.pending];
        const scope = this.pendingScope;
        this.pending.clear();
        this.pendingScope = emptyScope();
        if (!todo.includes('ads') && scopeSize(scope) > MAX_SCOPED) todo.push('ads');
        const scoped = !todo.includes('ads') && scopeSize(scope) > 0;
        await Promise.all([this.reload(todo), scoped ? this.reloadScope(scope) : Promise.resolve()]).catch((err) =>
          console.error(`auction: index reload failed: ${(err as Error).message}`),
        );
      }
    } finally {
      this.running = false;
    }
  }

  private async reload(parts: Part[]) {
    if (this.closed) return;
    await Promise.all(
      parts.map(async (part) => {
        if (part === 'ads') {
          const ads = await this.loadAds();
          await this.opts.onAdsLoaded?.(ads);
          this.ads = ads;
          this.adsLoadedAt = Date.now();
        }
        if (part === 'publishers') this.publishers = await loadEnabledPublishers(this.db);
        if (part === 'dsps') this.dsps = (await loadEnabledDsps(this.db)).filter(this.opts.dspFilter ?? (() => true));
      }),
    );
  }

  /** The ads of the scope read again and put in place of its entries; the rest of the index is kept. */
  private async reloadScope(scope: IndexScope) {
    if (this.closed) return;
    const fresh = await this.loadAds(scope);
    const ads = this.ads.filter((ad) => !inScope(ad, scope)).concat(fresh);
    await this.opts.onAdsLoaded?.(ads);
    this.ads = ads;
  }

  async close() {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.safety) clearInterval(this.safety);
    await this.reloading;
    await this.listener?.end().catch(() => undefined);
  }
}

const emptyScope = (): { campaignIds: Set<string>; adAccountIds: Set<string> } => ({ campaignIds: new Set(), adAccountIds: new Set() });
const scopeSize = (scope: IndexScope) => scope.campaignIds.size + scope.adAccountIds.size;
