/**
 * adctl's supply-side commands: publishers (chat hosts) and DSPs. Kept apart
 * from bin/adctl.ts so that file stays a dispatcher.
 */
import { plainPoolOf, type Db } from '../lib/db';
import { createPublisher, listPublishers } from '../domain/publishers';
import { findPublisher, showPublisher, updatePublisherSettings, type PublisherSettingsInput } from '../domain/publishers/settings';
import { DomainError } from '../domain/errors';
import { parseOrThrow } from '../lib/validation';
import { addDsp, disableDsp, listDsps, updateDspPrivacy } from '../domain/dsps';
import { decimalFlag } from './adctl-numbers';

type Options = (
  args: string[],
  spec: Record<string, { type: 'string' | 'boolean' }>,
) => { values: Record<string, string | boolean | undefined>; positionals: string[] };

/** `options` for a command of one positional argument (`what` names it in the usage error). */
function oneArgument(options: Options, usage: (m: string) => Error) {
  return (args: string[], what: string, spec: Parameters<Options>[1] = {}) => {
    const { values, positionals } = options(args, spec);
    if (positionals.length !== 1) throw usage(`exactly one ${what} is required`);
    return { values, argument: positionals[0] };
  };
}

/** A yes|no flag's value; undefined when not given. */
function yesNo(values: Record<string, string | boolean | undefined>, name: string, usage: (m: string) => Error): boolean | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  if (v !== 'yes' && v !== 'no') throw usage(`--${name} must be yes or no`);
  return v === 'yes';
}

/** `--tcf-vendor-id N|none`: an IAB TCF Global Vendor List id (range checked by the domain), or none; undefined when not given. */
function vendorIdFlag(values: Record<string, string | boolean | undefined>, usage: (m: string) => Error): number | null | undefined {
  const v = values['tcf-vendor-id'];
  if (v === undefined) return undefined;
  if (v === 'none') return null;
  return decimalFlag(String(v), 'tcf-vendor-id', usage, 'integer');
}

const DSP_PRIVACY_OPTIONS = { 'tcf-vendor-id': { type: 'string' }, 'bids-without-consent': { type: 'string' } } as const;

const PUBLISHER_SETTING_OPTIONS = {
  'floor-cpm': { type: 'string' },
  tmax: { type: 'string' },
  'max-ads-per-conversation': { type: 'string' },
  'min-turns-between-ads': { type: 'string' },
  'block-categories': { type: 'string' },
  'allow-categories': { type: 'string' },
  'block-advertisers': { type: 'string' },
  'rate-limit': { type: 'string' },
  'min-relevance': { type: 'string' },
  'teen-contextual-ads': { type: 'string' },
} as const;

/** `adctl publisher update`'s flags as settings: decimal numbers (their ranges checked by the domain), `none` clears a limit, lists comma-separated (empty clears). */
function publisherSettingsOf(values: Record<string, string | boolean | undefined>, usage: (m: string) => Error): PublisherSettingsInput {
  const text = (name: string) => (typeof values[name] === 'string' ? values[name] : undefined);
  const number = (name: string) => {
    const v = text(name);
    return v === undefined ? undefined : decimalFlag(v, name, usage);
  };
  const limit = (name: string) => (text(name) === 'none' ? null : number(name));
  const list = (name: string) => text(name)?.split(',');
  const settings: PublisherSettingsInput = {
    floorUsd: number('floor-cpm'),
    tmaxMs: number('tmax'),
    maxAdsPerConversation: limit('max-ads-per-conversation'),
    minTurnsBetweenAds: limit('min-turns-between-ads'),
    blockCategories: list('block-categories'),
    allowCategories: list('allow-categories'),
    blockAdvertisers: list('block-advertisers'),
    rateLimitPerSecond: text('rate-limit') === 'default' ? null : number('rate-limit'),
    minRelevance: text('min-relevance') === 'default' ? null : number('min-relevance'),
    teenContextualAds: yesNo(values, 'teen-contextual-ads', usage),
  };
  if (Object.values(settings).every((v) => v === undefined))
    throw usage(
      `give at least one of ${Object.keys(PUBLISHER_SETTING_OPTIONS)
        .map((o) => `--${o}`)
        .join(' ')}`,
    );
  return settings;
}

/** adctl's publisher commands: create (a sandbox with --test), list, show, update its settings, its report. */
async function runPublisherCommand(db: Db, command: string, rest: string[], options: Options, usage: (m: string) => Error): Promise<object> {
  const str = (v: string | boolean | undefined) => (typeof v === 'string' ? v : undefined);
  const withArgument = oneArgument(options, usage);
  switch (command) {
    case 'publisher create': {
      const { values } = options(rest, { name: { type: 'string' }, domain: { type: 'string' }, tmax: { type: 'string' }, test: { type: 'boolean' } });
      if (!values.name) throw usage('--name is required');
      return createPublisher(db, {
        name: str(values.name)!,
        domain: str(values.domain),
        tmaxMs: values.tmax === undefined ? undefined : decimalFlag(str(values.tmax)!, 'tmax', usage),
        test: values.test === true,
      });
    }
    case 'publisher list':
      options(rest, {});
      return { publishers: await listPublishers(db) };
    case 'publisher show':
      return showPublisher(db, withArgument(rest, 'PUBLISHER_ID').argument);
    case 'publisher update': {
      const { values, argument } = withArgument(rest, 'PUBLISHER_ID', PUBLISHER_SETTING_OPTIONS);
      return updatePublisherSettings(db, argument, publisherSettingsOf(values, usage));
    }
    case 'publisher forget-user': {
      // A chat host's erasure of one of its users, as POST /v1/publisher/user_erasures records it (domain/privacy/erasure.ts).
      const { values, argument } = withArgument(rest, 'PUBLISHER_ID', { 'user-id': { type: 'string' } });
      if (typeof values['user-id'] !== 'string') throw usage('--user-id is required');
      const { requestUserErasure, userErasureBodySchema } = await import('../domain/privacy/erasure');
      const { user_id } = parseOrThrow(userErasureBodySchema, { user_id: values['user-id'] });
      const publisher = await findPublisher(db, argument);
      return requestUserErasure(plainPoolOf(db), publisher.publicId, user_id);
    }
    case 'publisher erasure': {
      const { positionals } = options(rest, {});
      if (positionals.length !== 2) throw usage('PUBLISHER_ID and ERASURE_ID are required');
      const { findUserErasure } = await import('../domain/privacy/erasure');
      const publisher = await findPublisher(db, positionals[0]);
      const erasure = await findUserErasure(plainPoolOf(db), publisher.publicId, positionals[1]);
      if (!erasure) throw new DomainError('not_found', 'No such user erasure for this publisher', 'erasure_id');
      return erasure;
    }
    case 'publisher report': {
      const { values, argument } = withArgument(rest, 'PUBLISHER_ID', {
        'start-date': { type: 'string' },
        'end-date': { type: 'string' },
        granularity: { type: 'string' },
        'group-by': { type: 'string' },
      });
      if (!values['start-date'] || !values['end-date']) throw usage('--start-date and --end-date are required');
      const { reportOfPublisher } = await import('../auction/reports/report');
      return reportOfPublisher(db, argument, {
        start_date: str(values['start-date']),
        end_date: str(values['end-date']),
        granularity: str(values.granularity),
        group_by: str(values['group-by']),
      });
    }
    default:
      throw usage(`unknown command: ${command}`);
  }
}

/** adctl's DSP onboarding: add one, and update what it declared about consent (domain/privacy). */
async function runDspOnboarding(db: Db, command: string, rest: string[], options: Options, usage: (m: string) => Error): Promise<object> {
  const str = (v: string | boolean | undefined) => (typeof v === 'string' ? v : undefined);
  const withArgument = oneArgument(options, usage);
  switch (command) {
    case 'dsp add': {
      const { values } = options(rest, {
        name: { type: 'string' },
        protocol: { type: 'string' },
        'bid-url': { type: 'string' },
        'render-url': { type: 'string' },
        key: { type: 'string' },
        auth: { type: 'string' },
        'site-id': { type: 'string' },
        'publisher-id': { type: 'string' },
        ...DSP_PRIVACY_OPTIONS,
      });
      if (!values.name) throw usage('--name is required');
      if (!values.protocol) throw usage('--protocol is required');
      if (!values['bid-url']) throw usage('--bid-url is required');
      return addDsp(db, {
        name: str(values.name)!,
        protocol: str(values.protocol)!,
        bidUrl: str(values['bid-url'])!,
        renderUrl: str(values['render-url']),
        key: str(values.key),
        authStyle: str(values.auth),
        siteIdOverride: str(values['site-id']),
        publisherIdOverride: str(values['publisher-id']),
        tcfVendorId: vendorIdFlag(values, usage) ?? undefined,
        bidsWithoutConsent: yesNo(values, 'bids-without-consent', usage),
      });
    }
    case 'dsp update': {
      const { values, argument } = withArgument(rest, 'DSP_ID', DSP_PRIVACY_OPTIONS);
      const privacy = { tcfVendorId: vendorIdFlag(values, usage), bidsWithoutConsent: yesNo(values, 'bids-without-consent', usage) };
      if (privacy.tcfVendorId === undefined && privacy.bidsWithoutConsent === undefined)
        throw usage('give at least one of --tcf-vendor-id --bids-without-consent');
      return updateDspPrivacy(db, argument, privacy);
    }
    default:
      throw usage(`unknown command: ${command}`);
  }
}

export async function runSupplyCommand(db: Db, command: string, rest: string[], options: Options, usage: (m: string) => Error): Promise<object> {
  const str = (v: string | boolean | undefined) => (typeof v === 'string' ? v : undefined);
  const withArgument = oneArgument(options, usage);
  switch (command) {
    case 'publisher create':
    case 'publisher list':
    case 'publisher show':
    case 'publisher update':
    case 'publisher report':
    case 'publisher forget-user':
    case 'publisher erasure':
      return runPublisherCommand(db, command, rest, options, usage);
    case 'dsp add':
    case 'dsp update':
      return runDspOnboarding(db, command, rest, options, usage);
    case 'dsp list':
      options(rest, {});
      return { dsps: await listDsps(db) };
    case 'dsp disable':
      return disableDsp(db, withArgument(rest, 'DSP_ID').argument);
    case 'dsp check': {
      const { values, argument } = withArgument(rest, 'URL', { protocol: { type: 'string' }, key: { type: 'string' }, 'render-url': { type: 'string' } });
      if (values.protocol !== 'native' && values.protocol !== 'openrtb') throw usage('--protocol must be native or openrtb');
      const { checkDsp } = await import('../auction/dsp-check');
      return checkDsp({ bidUrl: argument, protocol: values.protocol, key: str(values.key), renderUrl: str(values['render-url']) });
    }
    case 'dsp report': {
      const { values } = options(rest, { dsp: { type: 'string' }, since: { type: 'string' } });
      const since = values.since === undefined ? undefined : new Date(str(values.since)!);
      if (since && Number.isNaN(since.getTime())) throw usage('--since must be an ISO 8601 time');
      const { dspReport } = await import('../auction/log/report');
      return dspReport({ dspId: str(values.dsp), since });
    }
    case 'dsp callbacks': {
      // Feedback calls owed to DSPs that ran out of attempts: list them, or put them back in line.
      const { values, positionals } = options(rest, { dsp: { type: 'string' }, all: { type: 'boolean' } });
      const { listParkedCallbacks, retryParkedCallbacks } = await import('../domain/delivery/dsp-callbacks');
      const dspId = str(values.dsp);
      if (positionals.length === 0) {
        if (values.all) throw usage('--all goes with retry');
        return { parked: await listParkedCallbacks(db, dspId) };
      }
      if (positionals[0] !== 'retry') throw usage(`unknown dsp callbacks action: ${positionals[0]}`);
      const ids = positionals.slice(1);
      if (values.all ? ids.length > 0 : ids.length === 0) throw usage('retry takes CALLBACK_ID... or --all [--dsp ID]');
      if (!values.all && dspId) throw usage('--dsp goes with --all');
      if (ids.some((id) => !/^[1-9][0-9]{0,18}$/.test(id))) throw usage('a CALLBACK_ID is a positive integer');
      return retryParkedCallbacks(db, values.all ? { all: true, dspId } : { ids: ids.map(BigInt) });
    }
    default:
      throw usage(`unknown command: ${command}`);
  }
}
