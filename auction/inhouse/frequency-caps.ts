import type { Pool } from 'pg';
import type { AuctionContext } from '../types';
import { audienceKey, frequencyEventsSince, insertFrequencyEvents, type FrequencyEvent } from '../../domain/serving/frequency-events';
import { pendingErasuresSince, userErasureSettleMs, type AcceptedErasure } from '../../domain/privacy/erasure';

/**
 * Frequency caps, shared by any number of auction processes without a
 * database round trip per request: every process keeps in memory who was
 * shown which campaign in the window (a replica of `frequency_events`), adds
 * its own wins at once, writes them in batches and reads everyone's every
 * `syncMs`. An impression (the view pixel) counts for the 24-hour window; a
 * won auction whose pixel has not fired counts provisionally for
 * `provisionalMs`, so a burst of prefetches cannot get past a cap.
 *
 * The same replica counts every ad shown in a conversation, a DSP's too, for
 * the publisher's conversation density (auction/publisher/screen.ts): how many
 * and at which turn the last one was shown.
 *
 * Worst case across processes (docs/api-behaviour.md): another process learns
 * of a win after at most two sync periods plus a query, so a user whose
 * requests reach P processes within that time can be shown up to P - 1
 * impressions past a cap. Nothing grows without bound: entries expire with
 * their window and are swept every minute.
 *
 * A user a chat host erased (domain/privacy/erasure.ts) is forgotten at the
 * next sync in every copy: each reads the erasures accepted since its last look
 * with the events, drops the user's key, and ignores the key's showings up to
 * the erasure's settle time (the rows the worker's sweeps delete), so a late
 * pixel or a row read again cannot bring the key back.
 */
export interface FrequencySettings {
  perUserDay: number;
  perConversation: number;
  provisionalMs: number;
  syncMs: number;
  windowMs?: number;
  /** How long after an erasure the key's showings are ignored (default: the erasure's settle time). */
  erasureSettleMs?: number;
}

/** The request's keys (computed once per request, when an ad first reaches the cap check). */
export interface AudienceKeys {
  publisherId: string;
  /** '' for a contextual-only request (domain/privacy): nothing is kept per user, capping is the conversation's. */
  user: string;
  chat: string;
}

/** The request's keys, hashed once per auction (kept on the context: the tracking tokens carry them too). */
export function audienceKeysOf(ctx: AuctionContext): AudienceKeys {
  if (ctx.audience) return ctx.audience;
  const publisherId = ctx.publisher.publicId;
  const { userId, chatId } = ctx.request;
  const user = ctx.privacy.personalized ? audienceKey('user', publisherId, userId) : '';
  return (ctx.audience = { publisherId, user, chat: chatId ? audienceKey('chat', publisherId, chatId) : '' });
}

/** Per key, per campaign: when each auction's count expires (an auction counts once, win and impression alike). */
type Shown = Map<string, Map<string, number>>;
/** Per conversation, per auction: when its count expires, when it was shown and at which turn. */
type Showing = { expires: number; atMs: number; turnMark: number };
type Conversation = Map<string, Showing>;

/** A conversation's ads in the window: how many, and the turn mark of the latest (0 when none). */
export interface ConversationAds {
  ads: number;
  lastTurnMark: number;
}

const DAY_MS = 86_400_000;
/** Rows read again on every sync: a row committed late (its recorded_at earlier than what was already read) is still seen. */
const REREAD_MS = 1_000;
const SWEEP_MS = 60_000;
const READ_LIMIT = 20_000;
/** Erasures read again on every sync: one committed late, or stamped by a clock behind ours, is still seen. */
const ERASURE_REREAD_MS = 60_000;

export class FrequencyCaps {
  private readonly users = new Map<string, Shown>();
  private readonly chats = new Map<string, Shown>();
  private readonly conversations = new Map<string, Conversation>();
  /** Erased users (publisher and key): until when their showings are ignored. */
  private readonly erased = new Map<string, number>();
  private pending: FrequencyEvent[] = [];
  private readFromMs = 0;
  private erasuresFromMs = 0;
  private timer: NodeJS.Timeout | null = null;
  private lastSweep = 0;
  private syncing: Promise<void> = Promise.resolve();
  readonly windowMs: number;

  constructor(
    private readonly pool: Pool,
    private readonly settings: FrequencySettings,
  ) {
    this.windowMs = settings.windowMs ?? DAY_MS;
  }

  get enabled(): boolean {
    return this.settings.perUserDay > 0 || this.settings.perConversation > 0;
  }

  /** Loads the window's events, then syncs every syncMs (caps off, the replica still counts conversations' ads). */
  async start(now = Date.now()): Promise<void> {
    this.readFromMs = now - this.windowMs;
    this.erasuresFromMs = now - this.windowMs;
    await this.sync(now);
    this.timer = setInterval(() => {
      void this.sync();
    }, this.settings.syncMs);
    this.timer.unref();
  }

  /**
   * The request's cap check: whether a campaign has reached a cap for this
   * user or conversation. Looked up once per request; null when neither has
   * been shown anything in the window (the common case costs no check per ad).
   */
  checkFor(keys: AudienceKeys, now: number): ((campaignId: string) => boolean) | null {
    const { perUserDay, perConversation } = this.settings;
    const user = perUserDay > 0 && keys.user !== '' ? this.users.get(`${keys.publisherId}\u0000${keys.user}`) : undefined;
    const chat = perConversation > 0 && keys.chat !== '' ? this.chats.get(`${keys.publisherId}\u0000${keys.chat}`) : undefined;
    if (!user && !chat) return null;
    return (campaignId) => countOf(user, campaignId, now) >= perUserDay || (chat !== undefined && countOf(chat, campaignId, now) >= perConversation);
  }

  /** The conversation's ads in the window (publisher density); none for a request without a chatId. */
  conversationAds(keys: AudienceKeys, now: number): ConversationAds {
    const shown = keys.chat === '' ? undefined : this.conversations.get(`${keys.publisherId}\u0000${keys.chat}`);
    let ads = 0;
    let latest = { atMs: -1, turnMark: 0 };
    for (const entry of shown?.values() ?? []) {
      if (entry.expires <= now) continue;
      ads += 1;
      if (entry.atMs > latest.atMs) latest = entry;
    }
    return { ads, lastTurnMark: latest.turnMark };
  }

  /**
   * A won auction (ours: its campaign; a DSP's: null), at the conversation's
   * turn: counted here at once, and written for the other processes with the next sync.
   */
  recordWin(keys: AudienceKeys, campaignId: string | null, auctionId: string, turnMark: number, now = Date.now()): void {
    const event: FrequencyEvent = {
      kind: 'win',
      publisherId: keys.publisherId,
      userKey: keys.user,
      chatKey: keys.chat,
      campaignId,
      auctionId,
      atMs: now,
      turnMark,
    };
    this.apply(event);
    this.pending.push(event);
  }

  /**
   * An in-house bid's campaign counted toward the user's and conversation's caps
   * from the moment the bid is made (in the same synchronous step as the cap
   * check) until its auction settles. Auctions of one user that run side by side
   * in this process (each waiting for its DSPs between check and win) see each
   * other's bids, so one process alone never shows a campaign past a cap. A bid
   * that wins is then counted by recordWin under the same auction id (one
   * showing); one that loses is released. An auction that fails before it
   * settles leaves its hold to expire with the provisional time.
   */
  hold(keys: AudienceKeys, campaignId: string, auctionId: string, now = Date.now()): void {
    const expires = now + this.settings.provisionalMs;
    if (keys.user && !this.isErased(keys.publisherId, keys.user, now)) add(this.users, `${keys.publisherId}\u0000${keys.user}`, campaignId, auctionId, expires);
    if (keys.chat) add(this.chats, `${keys.publisherId}\u0000${keys.chat}`, campaignId, auctionId, expires);
  }

  /** A held bid that did not win: it no longer counts. */
  release(keys: AudienceKeys, campaignId: string, auctionId: string): void {
    if (keys.user) remove(this.users, `${keys.publisherId}\u0000${keys.user}`, campaignId, auctionId);
    if (keys.chat) remove(this.chats, `${keys.publisherId}\u0000${keys.chat}`, campaignId, auctionId);
  }

  /** Writes this process's wins and reads everyone's since the last look (one at a time). */
  sync(now = Date.now()): Promise<void> {
    this.syncing = this.syncing
      .then(() => this.exchange(now))
      .catch((err: unknown) => {
        console.error(`auction: frequency sync failed, will retry: ${(err as Error).message}`);
      });
    return this.syncing;
  }

  private async exchange(now: number): Promise<void> {
    const mine = this.pending;
    this.pending = [];
    try {
      await insertFrequencyEvents(this.pool, mine);
    } catch (err) {
      this.pending = [...mine, ...this.pending];
      throw err;
    }
    // Applying an event twice changes nothing (an auction counts once), so rows read again are harmless.
    const rows = await frequencyEventsSince(this.pool, this.readFromMs, READ_LIMIT);
    // Erasures after the events: one accepted meanwhile is known before the rows it concerns are applied.
    const erasures = await pendingErasuresSince(this.pool, this.erasuresFromMs, READ_LIMIT);
    // A full page continues from its last erasure; otherwise the last minute is read again next time.
    this.erasuresFromMs = erasures.length === READ_LIMIT ? erasures[erasures.length - 1].requestedMs : Math.max(this.erasuresFromMs, now - ERASURE_REREAD_MS);
    for (const erasure of erasures) this.forget(erasure);
    for (const { event } of rows) this.apply(event);
    if (rows.length > 0) {
      const last = rows[rows.length - 1].recordedMs;
      // A full page continues from its last row; otherwise the last second is read again next time.
      this.readFromMs = rows.length === READ_LIMIT ? last : Math.max(this.readFromMs, last - REREAD_MS);
    }
    if (now - this.lastSweep >= SWEEP_MS) this.sweep(now);
  }

  /** An erased user: the key dropped now, its showings (pending writes included) ignored until the erasure settles. */
  private forget({ publisherId, userKey, requestedMs }: AcceptedErasure): void {
    const key = `${publisherId}\u0000${userKey}`;
    const until = requestedMs + (this.settings.erasureSettleMs ?? userErasureSettleMs());
    this.erased.set(key, Math.max(this.erased.get(key) ?? 0, until));
    this.users.delete(key);
    // Wins not written yet go without the user's key (the conversation's still counts).
    for (const e of this.pending) if (e.publisherId === publisherId && e.userKey === userKey) e.userKey = '';
  }

  private isErased(publisherId: string, userKey: string, atMs: number): boolean {
    const until = this.erased.get(`${publisherId}\u0000${userKey}`);
    return until !== undefined && atMs <= until;
  }

  private apply(e: FrequencyEvent): void {
    const expires = e.atMs + (e.kind === 'impression' ? this.windowMs : this.settings.provisionalMs);
    if (e.campaignId !== null) {
      if (e.userKey && !this.isErased(e.publisherId, e.userKey, e.atMs))
        add(this.users, `${e.publisherId}\u0000${e.userKey}`, e.campaignId, e.auctionId, expires);
      if (e.chatKey) add(this.chats, `${e.publisherId}\u0000${e.chatKey}`, e.campaignId, e.auctionId, expires);
    }
    if (e.chatKey) addShowing(this.conversations, `${e.publisherId}\u0000${e.chatKey}`, e, expires);
  }

  /** Drops what has expired: nothing outlives its window. */
  sweep(now: number): void {
    this.lastSweep = now;
    for (const map of [this.users, this.chats]) {
      for (const [key, shown] of map) {
        for (const [campaignId, auctions] of shown) {
          for (const [auctionId, expires] of auctions) if (expires <= now) auctions.delete(auctionId);
          if (auctions.size === 0) shown.delete(campaignId);
        }
        if (shown.size === 0) map.delete(key);
      }
    }
    for (const [key, conversation] of this.conversations) {
      for (const [auctionId, entry] of conversation) if (entry.expires <= now) conversation.delete(auctionId);
      if (conversation.size === 0) this.conversations.delete(key);
    }
    // Kept a reread period past their settle time: a row recorded just before it may still be read.
    for (const [key, until] of this.erased) if (until + ERASURE_REREAD_MS <= now) this.erased.delete(key);
  }

  /** Keys held (users and conversations): the replica's size, for metrics and tests. */
  get size(): number {
    return this.users.size + this.chats.size + this.conversations.size;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.sync();
  }
}

function add(map: Map<string, Shown>, key: string, campaignId: string, auctionId: string, expires: number): void {
  let shown = map.get(key);
  if (!shown) map.set(key, (shown = new Map<string, Map<string, number>>()));
  let auctions = shown.get(campaignId);
  if (!auctions) shown.set(campaignId, (auctions = new Map<string, number>()));
  // A win and its impression are one showing: the later expiry wins.
  auctions.set(auctionId, Math.max(auctions.get(auctionId) ?? 0, expires));
}

function remove(map: Map<string, Shown>, key: string, campaignId: string, auctionId: string): void {
  const shown = map.get(key);
  const auctions = shown?.get(campaignId);
  if (!shown || !auctions) return;
  auctions.delete(auctionId);
  if (auctions.size === 0) shown.delete(campaignId);
  if (shown.size === 0) map.delete(key);
}

/** A win and its impression are one showing: the later expiry wins, the win's turn mark stays (the ledger's impression row has none). */
function addShowing(map: Map<string, Conversation>, key: string, e: FrequencyEvent, expires: number): void {
  let conversation = map.get(key);
  if (!conversation) map.set(key, (conversation = new Map<string, Showing>()));
  const known = conversation.get(e.auctionId);
  conversation.set(e.auctionId, {
    expires: Math.max(known?.expires ?? 0, expires),
    atMs: Math.min(known?.atMs ?? e.atMs, e.atMs),
    turnMark: known?.turnMark || e.turnMark,
  });
}

function countOf(shown: Shown | undefined, campaignId: string, now: number): number {
  const auctions = shown?.get(campaignId);
  if (!auctions) return 0;
  let n = 0;
  for (const expires of auctions.values()) if (expires > now) n += 1;
  return n;
}
