/**
 * adctl's supply-side commands: publishers (chat hosts) and DSPs. Kept apart
 * from bin/adctl.ts so that file stays a dispatcher.
 */
import type { Db } from '../lib/db';
import { createPublisher, listPublishers } from '../domain/publishers';
import { addDsp, disableDsp, listDsps } from '../domain/dsps';

type Options = (
  args: string[],
  spec: Record<string, { type: 'string' | 'boolean' }>,
) => { values: Record<string, string | boolean | undefined>; positionals: string[] };

/** adctl's publisher commands: create, list, its report. */
async function runPublisherCommand(db: Db, command: string, rest: string[], options: Options, usage: (m: string) => Error): Promise<object> {
  const str = (v: string | boolean | undefined) => (typeof v === 'string' ? v : undefined);
  switch (command) {
    case 'publisher create': {
      const { values } = options(rest, { name: { type: 'string' }, domain: { type: 'string' }, tmax: { type: 'string' } });
      if (!values.name) throw usage('--name is required');
      return createPublisher(db, { name: str(values.name)!, domain: str(values.domain), tmaxMs: values.tmax === undefined ? undefined : Number(values.tmax) });
    }
    case 'publisher list':
      options(rest, {});
      return { publishers: await listPublishers(db) };
    case 'publisher report': {
      const { values, positionals } = options(rest, {
        'start-date': { type: 'string' },
        'end-date': { type: 'string' },
        granularity: { type: 'string' },
        'group-by': { type: 'string' },
      });
      if (positionals.length !== 1) throw usage('exactly one PUBLISHER_ID is required');
      if (!values['start-date'] || !values['end-date']) throw usage('--start-date and --end-date are required');
      const { reportOfPublisher } = await import('../auction/reports/report');
      return reportOfPublisher(db, positionals[0], {
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

export async function runSupplyCommand(db: Db, command: string, rest: string[], options: Options, usage: (m: string) => Error): Promise<object> {
  const str = (v: string | boolean | undefined) => (typeof v === 'string' ? v : undefined);
  switch (command) {
    case 'publisher create':
    case 'publisher list':
    case 'publisher report':
      return runPublisherCommand(db, command, rest, options, usage);
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
      });
    }
    case 'dsp list':
      options(rest, {});
      return { dsps: await listDsps(db) };
    case 'dsp disable': {
      const { positionals } = options(rest, {});
      if (positionals.length !== 1) throw usage('exactly one DSP_ID is required');
      return disableDsp(db, positionals[0]);
    }
    case 'dsp check': {
      const { values, positionals } = options(rest, { protocol: { type: 'string' }, key: { type: 'string' }, 'render-url': { type: 'string' } });
      if (positionals.length !== 1) throw usage('exactly one URL is required');
      if (values.protocol !== 'native' && values.protocol !== 'openrtb') throw usage('--protocol must be native or openrtb');
      const { checkDsp } = await import('../auction/dsp-check');
      return checkDsp({ bidUrl: positionals[0], protocol: values.protocol, key: str(values.key), renderUrl: str(values['render-url']) });
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
