import { formatUsd } from '../money';

/**
 * Every delivery issue code: its severity, what it means in a sentence built
 * from the issue's details, and what the advertiser can do about it. The one
 * table the API, `adctl campaign delivery` and the dashboard show.
 */
export type IssueCode =
  | 'blocked'
  | 'rejected'
  | 'not_approved'
  | 'archived'
  | 'campaign_paused'
  | 'ended'
  | 'budget_exhausted'
  | 'scheduled'
  | 'ad_group_paused'
  | 'ad_paused'
  | 'no_ads'
  | 'no_landing_url'
  | 'no_image_or_logo'
  | 'creative_in_review'
  | 'creative_not_approved'
  | 'creative_edit_rejected'
  | 'creative_rejected'
  | 'no_targeted_traffic'
  | 'not_relevant'
  | 'outbid'
  | 'paced'
  | 'frequency_capped';

type Details = Record<string, string | number | string[]>;

/** A participation share as people read it: "1 in 40" below 10%, else a percentage ("35%"). */
export function participationText(share: number): string {
  if (!(share > 0)) return 'none';
  if (share < 0.1) return `1 in ${Math.round(1 / share)}`;
  return `${Math.round(share * 100)}%`;
}
type Severity = 'blocking' | 'limiting' | 'info';
interface Text {
  severity: Severity;
  message: (d: Details) => string;
  action?: string;
}

const cpm = (micros: unknown) => `${formatUsd(Number(micros))} CPM`;
/** How close a not_relevant ad group came: its highest score against the default bar (0..1, two places); at or above it, only publishers' higher bars held it back. */
const closestText = (closest: number, bar: number) =>
  closest >= bar
    ? `: the closest it came was ${closest.toFixed(2)}, above the default bar of ${bar.toFixed(2)} but below the higher minimum these publishers set.`
    : `: the closest it came was ${closest.toFixed(2)} against a bar of ${bar.toFixed(2)} (0 unrelated, 1 exactly on topic).`;
/** A detail as a message shows it (a list comma-separated). */
const text = (value: Details[string] | undefined) => (Array.isArray(value) ? value.join(', ') : String(value));

const TEXTS: Record<IssueCode, Text> = {
  blocked: {
    severity: 'blocking',
    message: (d) => `Blocked by a reviewer: ${text(d.reason)}.`,
    action: 'Contact support; a blocked campaign never serves again.',
  },
  rejected: {
    severity: 'blocking',
    message: (d) => `Rejected in review${d.reason ? `: ${text(d.reason)}` : ''}.`,
    action: 'Create a new campaign that follows the ad policy.',
  },
  not_approved: { severity: 'blocking', message: () => 'Waiting for review.', action: 'Nothing yet: a reviewer approves or rejects it, usually within a day.' },
  archived: { severity: 'blocking', message: () => 'The campaign is archived.' },
  campaign_paused: { severity: 'blocking', message: () => 'The campaign is paused.', action: 'Activate the campaign.' },
  ended: {
    severity: 'info',
    message: (d) => `The campaign ended${d.ended_at ? ` at ${text(d.ended_at)}` : ''}.`,
    action: 'Create a new campaign to keep advertising.',
  },
  budget_exhausted: {
    severity: 'info',
    message: (d) =>
      `The whole budget is spent${d.spent_micros !== undefined ? ` (${formatUsd(Number(d.spent_micros))} of ${formatUsd(Number(d.lifetime_spend_limit_micros))})` : ''}.`,
    action: 'Raise the lifetime spend limit to deliver again.',
  },
  scheduled: {
    severity: 'info',
    message: (d) => `Scheduled: starts at ${text(d.starts_at)}.`,
    action: 'Nothing: it starts on its own. Change start_time to start sooner.',
  },
  ad_group_paused: { severity: 'blocking', message: () => 'The ad group is paused.', action: 'Activate the ad group.' },
  ad_paused: { severity: 'blocking', message: () => 'The ad is paused.', action: 'Activate the ad.' },
  no_ads: { severity: 'blocking', message: () => 'The ad group has no ads.', action: 'Add an ad to the ad group.' },
  no_landing_url: {
    severity: 'blocking',
    message: () => 'No landing page: the ad has no target URL and the ad account no website, so a click would go nowhere.',
    action: "Set the account's website (dashboard Account page, or adctl org update --url) or the ad's target URL.",
  },
  no_image_or_logo: {
    severity: 'blocking',
    message: (d) =>
      d.when === 'images_off'
        ? "Requests with images off need the account's logo for a text placement: this ad has an image, but the account has no logo, so it serves only where images are on."
        : "A chat card needs an image, or the account's logo for a text placement; it has neither.",
    action: "Upload the account's logo (dashboard Account page, or adctl org update --logo-file) or give the ad an image.",
  },
  creative_in_review: { severity: 'info', message: () => 'An edited creative waits for review; the approved version serves meanwhile.' },
  creative_not_approved: { severity: 'blocking', message: () => "The ad's creative waits for review; nothing of it serves until it is approved." },
  creative_edit_rejected: {
    severity: 'info',
    message: (d) => `An edit was rejected${d.reason ? ` (${text(d.reason)})` : ''}; the previously approved version serves.`,
    action: 'Edit the creative again to follow the ad policy.',
  },
  creative_rejected: {
    severity: 'blocking',
    message: (d) => `The creative was rejected${d.reason ? `: ${text(d.reason)}` : ''}.`,
    action: 'Edit the creative to follow the ad policy.',
  },
  no_targeted_traffic: {
    severity: 'limiting',
    message: (d) => `None of the ${text(d.requests)} ad requests of the last hour came from the targeted countries (${(d.countries as string[]).join(', ')}).`,
    action: 'Target more countries, or wait for traffic from these.',
  },
  not_relevant: {
    severity: 'limiting',
    message: (d) =>
      `None of the ${text(d.requests)} ad requests of the last hour from the targeted countries was relevant enough to the ad group's context hints and ad` +
      (d.closest_relevance === undefined ? '.' : closestText(Number(d.closest_relevance), Number(d.min_relevance))),
    action:
      'Write context hints the way people talk about your product (several specific phrases rather than one ambiguous word), and test them on sample conversations before spending: POST /v1/ad_groups/{id}/test_relevance scores the ad group against a conversation you send.',
  },
  outbid: {
    severity: 'limiting',
    message: (d) =>
      `Eligible for ${text(d.eligible)} ad requests in the last hour, won ${text(d.won)}` +
      (d.median_winning_price_micros !== undefined ? `; the median winning bid was ${cpm(d.median_winning_price_micros)}` : '') +
      (d.max_bid_micros ? ` against a max bid of ${formatUsd(Number(d.max_bid_micros))}.` : '.') +
      // domain/serving/diagnostics.ts, priceWithheld: a median of few advertisers' bids would disclose one of them.
      (d.winning_price_withheld !== undefined ? ' The winning bids are not shown: too few other advertisers made them to keep each one private.' : ''),
    action: "Raise the ad group's max bid.",
  },
  paced: {
    severity: 'limiting',
    message: (d) =>
      `Pacing holds the campaign back to spend its budget evenly until its end: it now enters ${participationText(Number(d.participation))} of the auctions it qualifies for, because ${formatUsd(Number(d.actual_spend_micros))} is spent where ${formatUsd(Number(d.planned_spend_micros))} was planned by now. It speeds up again as the plan catches up.`,
    action: 'Nothing to do if an even spend is what you want; a larger budget or a later end time lets it serve more often.',
  },
  frequency_capped: {
    severity: 'info',
    message: (d) =>
      `${text(d.requests)} ad requests of the last hour came from users or conversations that had already seen the campaign as often as the frequency caps allow.`,
  },
};

export const ISSUE_CODES = Object.keys(TEXTS) as IssueCode[];

export function issueText(code: IssueCode, details: Details): { severity: Severity; message: string; action?: string } {
  const text = TEXTS[code];
  return { severity: text.severity, message: text.message(details), ...(text.action ? { action: text.action } : {}) };
}
