/**
 * `adctl`: how operators and tests drive what has no public API.
 * Every command prints one JSON object on stdout and exits 0, or prints an
 * error on stderr and exits non-zero.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { closeDb, createDb, type Db } from '../lib/db';
import { config } from '../lib/config';
import { closeWithin } from '../lib/deadline';
import { runAs } from '../lib/actor';
import { createMember, createOrganization, deleteOrganization, findOrganization, type Role } from '../domain/organizations/service';
import { isUuid } from '../domain/ids';
import { decimalFlag } from './adctl-numbers';

class UsageError extends Error {}

const USAGE = `usage:
  adctl org create --name N [--domain D] [--payment-method PM [--customer CUS]] [--no-ad-account]
  adctl org update --org ORG [--url URL] [--logo-file F | --logo-url U] [--payment-method PM [--customer CUS]]
  adctl org list [--limit N]
  adctl org delete --org ORG
  adctl member create --org ORG --role owner|admin|member
  adctl login-link --org ORG [--role owner|admin|member] | --staff [--name N]
  adctl review approve|reject CAMPAIGN_ID [--reason R]
  adctl review block CAMPAIGN_ID --reason R
  adctl lifecycle backfill [--org ORG]
  adctl webhook list [--org ORG] | adctl webhook create --org ORG --url URL [--events TYPE,...|*] [--description D]
  adctl webhook test|delete|deliveries ENDPOINT_ID | adctl webhook replay ENDPOINT_ID DELIVERY_ID
  adctl export create --org ORG --level ad_account|campaign|ad_group|ad [--id ID] [--format csv|jsonl] [--query JSON]
  adctl export show EXPORT_ID [--output FILE]
  adctl audit [--org ORG | --platform] [--type campaign|ad_group|ad|account|api_key|publisher|dsp] [--entity ID] [--limit N]
  adctl campaign delivery CAMPAIGN_ID
  adctl publisher create --name N [--domain D] [--tmax MS] [--test]
  adctl publisher list
  adctl publisher show PUBLISHER_ID
  adctl publisher update PUBLISHER_ID [--floor-cpm USD] [--tmax MS] [--max-ads-per-conversation N|none]
        [--min-turns-between-ads N|none] [--block-categories ID,...] [--allow-categories CAT,...] [--block-advertisers DOMAIN,...]
        [--rate-limit PER_SECOND|default]
        [--min-relevance 0..1|default] [--teen-contextual-ads yes|no]
  adctl publisher report PUBLISHER_ID --start-date YYYY-MM-DD --end-date YYYY-MM-DD [--granularity daily|hourly] [--group-by source|format|country|category|language]
  adctl publisher forget-user PUBLISHER_ID --user-id ID
  adctl publisher erasure PUBLISHER_ID ERASURE_ID
  adctl dsp add --name N --protocol native|openrtb --bid-url U [--render-url U] [--key K] [--auth bearer|url] [--site-id ID] [--publisher-id ID]
        [--tcf-vendor-id N] [--bids-without-consent yes|no]
  adctl dsp update DSP_ID [--tcf-vendor-id N|none] [--bids-without-consent yes|no]
  adctl dsp list
  adctl dsp disable DSP_ID
  adctl dsp check URL --protocol native|openrtb [--key K] [--render-url U]
  adctl dsp report [--dsp ID] [--since ISO-8601]
  adctl dsp callbacks [--dsp ID] | adctl dsp callbacks retry (CALLBACK_ID... | --all [--dsp ID])
  adctl external import --file F [--partner P]
  adctl external schedule --partner P --url U [--cron "0 6 * * *"]
  adctl demo seed --days D --impressions N [--no-live]
  adctl review pending [--campaign CAMPAIGN_ID]
  adctl review approve-ad|reject-ad AD_ID [--revision N] [--reason R]
  adctl dead-letters list [--table T] [--limit N]
  adctl dead-letters delete (ID... | --table T --all)
  adctl safety explain (--file CONVERSATION.json | --text T) [--publisher PUBLISHER_ID]
  adctl relevance --ad-groups FILE --conversations FILE [--min-relevance 0..1]`;

function options<S extends Record<string, { type: 'string' | 'boolean' }>>(args: string[], spec: S) {
  try {
    return parseArgs({ args, options: spec, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** An integer flag's value: decimal digits only (bin/adctl-numbers.ts). */
const integerFlag = (value: string, flag: string) => decimalFlag(value, flag, (m) => new UsageError(m), 'integer');

async function organizationOf(db: Db, publicId: string | undefined) {
  if (!publicId) throw new UsageError('--org is required');
  const org = isUuid(publicId) ? await findOrganization(db, publicId.toLowerCase()) : null;
  if (!org) throw new Error(`no such organization: ${publicId}`);
  return org;
}

/** Runs `use` with the client `open` makes, closed afterwards (bounded; `label` names the close). */
async function withClient<C, T>(open: () => Promise<C>, close: (client: C) => Promise<unknown>, label: string, use: (client: C) => Promise<T>): Promise<T> {
  const client = await open();
  try {
    return await use(client);
  } finally {
    await closeWithin(config.timeouts.closeMs, label, () => close(client));
  }
}

/**
 * Runs `use` with a Temporal client. Loaded only when a command needs it: the
 * Temporal client costs every other command start-up time.
 */
const withTemporal = <T>(use: (temporal: import('@temporalio/client').Client) => Promise<T>): Promise<T> =>
  withClient(
    async () => (await import('../lib/temporal')).createTemporalClient(),
    (temporal) => temporal.connection.close(),
    'temporal connection close',
    use,
  );

const withClickhouse = <T>(use: (ch: import('@clickhouse/client').ClickHouseClient) => Promise<T>, requestTimeoutMs?: number): Promise<T> =>
  withClient(
    async () => (await import('../lib/clickhouse/client')).createClickhouse(undefined, { requestTimeoutMs }),
    (ch) => ch.close(),
    'clickhouse close',
    use,
  );

/** Progress on stderr (stdout is the command's JSON): a bar on a terminal, plain lines otherwise. */
async function progressReporter(unit: string) {
  if (process.stderr.isTTY) {
    const { SingleBar, Presets } = await import('cli-progress');
    const bar = new SingleBar({ stream: process.stderr, format: `{bar} {percentage}% | {value}/{total} ${unit} | ETA {eta}s` }, Presets.shades_classic);
    let started = false;
    return {
      update: (done: number, total: number) => {
        if (!started) {
          bar.start(total, done);
          started = true;
        } else bar.update(done);
      },
      stop: () => {
        if (started) bar.stop();
      },
    };
  }
  return {
    update: (done: number, total: number) => {
      process.stderr.write(`progress ${done}/${total} ${unit}\n`);
    },
    stop: () => {},
  };
}

/** `adctl login-link`: a one-time dashboard sign-in for a member of the organization (the oldest with the role, owner by default) or a staff reviewer. */
async function loginLink(db: Db, args: string[]): Promise<object> {
  const { values, positionals } = options(args, {
    org: { type: 'string' },
    role: { type: 'string' },
    staff: { type: 'boolean' },
    name: { type: 'string' },
  } as const);
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
  const { createLoginLink, loginLinkUrl, memberLoginLink } = await import('../domain/dashboard/sessions');
  if (values.staff) {
    if (values.org || values.role) throw new UsageError('--staff takes no --org or --role');
    const link = await createLoginLink(db, { staffName: values.name ?? 'reviewer' });
    return { url: loginLinkUrl(link.token), expires_at: link.expiresAt.toISOString() };
  }
  const role = (values.role ?? 'owner') as Role;
  if (!['owner', 'admin', 'member'].includes(role)) throw new UsageError('--role must be owner, admin or member');
  const org = await organizationOf(db, values.org);
  return memberLoginLink(db, org.id, role);
}

/** `adctl audit`: the audit log of every organization and the platform's own (publishers, DSPs), newest first. */
async function auditCommand(db: Db, args: string[]): Promise<object> {
  const { values, positionals } = options(args, {
    org: { type: 'string' },
    entity: { type: 'string' },
    type: { type: 'string' },
    platform: { type: 'boolean' },
    limit: { type: 'string' },
  } as const);
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
  const { AUDIT_ENTITY_TYPES, listAllAuditLog } = await import('../domain/audit/log');
  const type = values.type as (typeof AUDIT_ENTITY_TYPES)[number] | undefined;
  if (type !== undefined && !AUDIT_ENTITY_TYPES.includes(type)) throw new UsageError(`--type must be one of ${AUDIT_ENTITY_TYPES.join(', ')}`);
  if (values.entity !== undefined && !isUuid(values.entity)) throw new UsageError('--entity must be an id (a UUID)');
  if (values.platform && values.org) throw new UsageError('give --org or --platform, not both');
  const limit = values.limit === undefined ? 50 : integerFlag(values.limit, '--limit');
  if (limit < 1 || limit > 1000) throw new UsageError('--limit must be between 1 and 1000');
  const organizationId = values.org === undefined ? undefined : (await organizationOf(db, values.org)).id;
  const entries = await listAllAuditLog(db, { organizationId, platformOnly: values.platform, entity_type: type, entity_id: values.entity }, limit);
  return { entries };
}

/** A command: its arguments after the noun and verb, and its name (`noun verb`). */
type Command = (db: Db, args: string[], command: string) => Promise<object>;

const exactlyOne = (positionals: string[], what: string) => {
  if (!positionals[0] || positionals.length > 1) throw new UsageError(`exactly one ${what} is required`);
  return positionals[0];
};

/**
 * `adctl org update`: the website, logo and default card, through the same
 * service and checks as the dashboard's Account page (domain/ad-accounts/settings.ts).
 * `--url ''` removes the website.
 */
const updateOrganizationCommand: Command = async (db, args) => {
  const { values, positionals } = options(args, {
    org: { type: 'string' },
    url: { type: 'string' },
    'logo-file': { type: 'string' },
    'logo-url': { type: 'string' },
    'payment-method': { type: 'string' },
    customer: { type: 'string' },
  } as const);
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
  const { url, 'logo-file': logoFile, 'logo-url': logoUrl, 'payment-method': paymentMethod, customer } = values;
  if (logoFile !== undefined && logoUrl !== undefined) throw new UsageError('give --logo-file or --logo-url, not both');
  if (customer !== undefined && paymentMethod === undefined) throw new UsageError('--customer goes with --payment-method');
  if ([url, logoFile, logoUrl, paymentMethod].every((v) => v === undefined)) {
    throw new UsageError('nothing to update: give --url, --logo-file, --logo-url or --payment-method');
  }
  const org = await organizationOf(db, values.org);
  const { accountChanges, accountUpdateSchema, updateAccount } = await import('../domain/ad-accounts/settings');
  const { parseOrThrow } = await import('../lib/validation');
  const { createAssetStore } = await import('../lib/asset-store');
  const update = parseOrThrow(accountUpdateSchema, { url: url === '' ? null : url, payment_method: paymentMethod });
  const logo = logoFile !== undefined ? { file: await readFile(logoFile) } : logoUrl !== undefined ? { url: logoUrl } : undefined;
  return updateAccount({ db, store: createAssetStore() }, org.id, { ...accountChanges(update), logo, stripeCustomerId: customer });
};

const organizationCommands: Record<string, Command> = {
  'org create': async (db, args) => {
    const { values } = options(args, {
      name: { type: 'string' },
      domain: { type: 'string' },
      'payment-method': { type: 'string' },
      customer: { type: 'string' },
      'no-ad-account': { type: 'boolean' },
    } as const);
    if (!values.name) throw new UsageError('--name is required');
    return createOrganization(db, {
      name: values.name,
      domain: values.domain,
      paymentMethodId: values['payment-method'],
      stripeCustomerId: values.customer,
      withAdAccount: !values['no-ad-account'],
    });
  },
  'org update': updateOrganizationCommand,
  'org list': async (db, args) => {
    const { values, positionals } = options(args, { limit: { type: 'string' } } as const);
    if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
    const limit = values.limit === undefined ? 100 : integerFlag(values.limit, 'limit');
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be an integer from 1 to 1000');
    const { listAccountSettings } = await import('../domain/ad-accounts/settings');
    return { organizations: await listAccountSettings(db, limit) };
  },
  'org delete': async (db, args) => {
    const { values } = options(args, { org: { type: 'string' } } as const);
    const org = await organizationOf(db, values.org);
    await deleteOrganization(db, org.id);
    return { org_public_id: org.publicId, deleted: true };
  },
  'member create': async (db, args) => {
    const { values } = options(args, { org: { type: 'string' }, role: { type: 'string' } } as const);
    const role = values.role as Role;
    if (!['owner', 'admin', 'member'].includes(role)) throw new UsageError('--role must be owner, admin or member');
    const org = await organizationOf(db, values.org);
    return createMember(db, org.id, role);
  },
};

const reviewCampaignCommand: Command = async (db, args, command) => {
  const { values, positionals } = options(args, { reason: { type: 'string' } } as const);
  const campaignId = exactlyOne(positionals, 'CAMPAIGN_ID');
  const { reviewCampaign } = await import('../use-cases/campaigns/review-campaign');
  const verdict = command === 'review approve' ? 'approved' : 'rejected';
  const reviewed = await withTemporal((temporal) => reviewCampaign({ db, temporal }, campaignId, verdict, values.reason));
  return { campaign_id: reviewed.id, review_status: reviewed.reviewStatus };
};

const reviewCreativeCommand: Command = async (db, args, command) => {
  const { values, positionals } = options(args, { reason: { type: 'string' }, revision: { type: 'string' } } as const);
  const adId = exactlyOne(positionals, 'AD_ID');
  const revision = values.revision === undefined ? undefined : integerFlag(values.revision, 'revision');
  const { reviewCreative } = await import('../use-cases/creatives/review-creative');
  const verdict = command === 'review approve-ad' ? 'approved' : 'rejected';
  return withTemporal((temporal) => reviewCreative({ db, temporal }, adId, verdict, values.reason, revision));
};

const reviewCommands: Record<string, Command> = {
  'review approve': reviewCampaignCommand,
  'review reject': reviewCampaignCommand,
  'review block': async (db, args) => {
    const { values, positionals } = options(args, { reason: { type: 'string' } } as const);
    const campaignId = exactlyOne(positionals, 'CAMPAIGN_ID');
    const reason = values.reason?.trim();
    if (!reason) throw new UsageError('--reason is required');
    const { blockCampaign } = await import('../use-cases/campaigns/block-campaign');
    return withTemporal((temporal) => blockCampaign({ db, temporal }, campaignId, reason));
  },
  'review pending': async (db, args) => {
    // Changed creatives of approved campaigns: what serves now, what waits, and what differs.
    const { values } = options(args, { campaign: { type: 'string' } } as const);
    if (values.campaign !== undefined && !isUuid(values.campaign)) throw new UsageError('--campaign must be a campaign id');
    const { pendingCreativeReviews } = await import('../domain/creatives/review');
    return { pending: await pendingCreativeReviews(db, values.campaign?.toLowerCase()) };
  },
  'review approve-ad': reviewCreativeCommand,
  'review reject-ad': reviewCreativeCommand,
};

const campaignCommands: Record<string, Command> = {
  'campaign delivery': async (db, args) => {
    // The delivery status and issues, as GET /v1/campaigns/{id}/delivery answers them (any organization's campaign).
    const { positionals } = options(args, {} as const);
    if (positionals.length !== 1) throw new UsageError('exactly one CAMPAIGN_ID is required');
    const { campaignDelivery } = await import('../domain/serving/diagnostics');
    return withClickhouse((ch) => campaignDelivery({ db, ch, database: config.clickhouse.database }, null, positionals[0]));
  },
  'lifecycle backfill': async (db, args) => {
    const { values } = options(args, { org: { type: 'string' } } as const);
    const organizationId = values.org === undefined ? undefined : (await organizationOf(db, values.org)).id;
    const { backfillCampaignLifecycles } = await import('../use-cases/campaigns/backfill-lifecycles');
    return withTemporal((temporal) => backfillCampaignLifecycles({ db, temporal }, organizationId));
  },
};

/** The supply-side commands live beside the auction's domain (bin/adctl-supply.ts). */
const supplyCommand: Command = async (db, args, command) => {
  const { runSupplyCommand } = await import('./adctl-supply');
  return runSupplyCommand(
    db,
    command,
    args,
    (a, spec) => options(a, spec),
    (m) => new UsageError(m),
  );
};
/** Webhook endpoints and their delivery logs (bin/adctl-webhooks.ts). */
const webhookCommand: Command = async (db, args, command) => {
  const { runWebhookCommand } = await import('./adctl-webhooks');
  return runWebhookCommand(
    db,
    command,
    args,
    (a, spec) => options(a, spec),
    (m) => new UsageError(m),
  );
};
/** Report exports (bin/adctl-exports.ts). */
const exportCommand: Command = async (db, args, command) => {
  const { runExportCommand } = await import('./adctl-exports');
  return runExportCommand(
    db,
    command,
    args,
    (a, spec) => options(a, spec),
    (m) => new UsageError(m),
  );
};
const webhookCommands: Record<string, Command> = Object.fromEntries(
  ['webhook list', 'webhook create', 'webhook delete', 'webhook test', 'webhook deliveries', 'webhook replay'].map((name) => [name, webhookCommand]),
);
const supplyCommands: Record<string, Command> = Object.fromEntries(
  [
    'publisher create',
    'publisher list',
    'publisher show',
    'publisher update',
    'publisher report',
    'publisher forget-user',
    'publisher erasure',
    'dsp add',
    'dsp update',
    'dsp list',
    'dsp disable',
    'dsp check',
    'dsp report',
    'dsp callbacks',
  ].map((name) => [name, supplyCommand]),
);

const externalSupplyCommands: Record<string, Command> = {
  'external import': async (db, args) => {
    const { values } = options(args, { file: { type: 'string' }, partner: { type: 'string' } } as const);
    if (!values.file) throw new UsageError('--file is required');
    const { readFile } = await import('node:fs/promises');
    const { importExternalReport, parseExternalReport } = await import('../domain/delivery/external-supply');
    const text = await readFile(values.file, 'utf8');
    return withClickhouse((ch) =>
      importExternalReport({ db, ch, database: config.clickhouse.database }, values.partner ?? 'default', parseExternalReport(text)),
    );
  },
  'external schedule': async (_db, args) => {
    const { values } = options(args, { partner: { type: 'string' }, url: { type: 'string' }, cron: { type: 'string' } } as const);
    const { partner, url, cron } = values;
    if (!partner || !url) throw new UsageError('--partner and --url are required');
    const { scheduleExternalImport } = await import('../workflows/clients/external-supply');
    return withTemporal((temporal) => scheduleExternalImport(temporal, { partner, url, cron }));
  },
};

const DEMO_SEED_STATEMENT_MS = 10 * 60_000;

const demoSeedCommand: Command = async (db, args) => {
  const { values } = options(args, { days: { type: 'string' }, impressions: { type: 'string' }, 'no-live': { type: 'boolean' } } as const);
  const days = values.days === undefined ? 90 : integerFlag(values.days, 'days');
  const impressions = values.impressions === undefined ? 1_000_000 : integerFlag(values.impressions, 'impressions');
  if (!Number.isInteger(days) || days < 1 || days > 366) throw new UsageError('--days must be an integer from 1 to 366');
  if (!Number.isInteger(impressions) || impressions < 1) throw new UsageError('--impressions must be a positive integer');
  const { seedDemo } = await import('../dev/demo-seed');
  const { createAssetStore } = await import('../lib/asset-store');
  const { startCampaignReview } = await import('../workflows/clients/campaign-review');
  const { campaignSearchOf } = await import('../domain/campaigns/search');
  const progress = await progressReporter('rows');
  try {
    const result = await withTemporal((temporal) =>
      withClickhouse(
        (ch) =>
          seedDemo(
            { db, ch, database: config.clickhouse.database },
            {
              days,
              impressions,
              // Live campaigns (ads that serve in the demo chat) need the asset store for their logos.
              store: values['no-live'] ? undefined : createAssetStore(),
              onProgress: progress.update,
              startReview: async (campaign) => startCampaignReview(temporal, (await campaignSearchOf(db, campaign.id))!),
            },
          ),
        // A chunk's INSERT ... SELECT can outlast a request's timeout on a busy machine; an abandoned one would finish unreported.
        DEMO_SEED_STATEMENT_MS,
      ),
    );
    // Each organization with a one-time sign-in link for its owner: the demo is a click away.
    const { memberLoginLink } = await import('../domain/dashboard/sessions');
    const organizations = [];
    for (const org of result.orgs)
      organizations.push({ org_public_id: org.publicId, name: org.name, login_url: (await memberLoginLink(db, org.id, 'owner')).url });
    return { organizations, campaigns: result.campaigns, rows: result.rows };
  } finally {
    progress.stop();
  }
};

/** Rows a mover could not store in ClickHouse, with ClickHouse's refusal (domain/dead-letters). */
const deadLetterCommands: Record<string, Command> = {
  'dead-letters list': async (db, args) => {
    const { values, positionals } = options(args, { table: { type: 'string' }, limit: { type: 'string' } } as const);
    if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
    const limit = values.limit === undefined ? 50 : integerFlag(values.limit, 'limit');
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be an integer from 1 to 1000');
    const { countDeadLetters, listDeadLetters } = await import('../domain/dead-letters/store');
    return { counts: await countDeadLetters(db), dead_letters: await listDeadLetters(db, { table: values.table, limit }) };
  },
  'dead-letters delete': async (db, args) => {
    const { values, positionals } = options(args, { table: { type: 'string' }, all: { type: 'boolean' } } as const);
    const { deleteDeadLetters } = await import('../domain/dead-letters/store');
    if (values.all) {
      if (!values.table || positionals.length > 0) throw new UsageError('--all takes --table and no ids');
      return { deleted: await deleteDeadLetters(db, { table: values.table }) };
    }
    if (positionals.length === 0 || values.table) throw new UsageError('give dead letter ids, or --table T --all');
    if (positionals.some((id) => !/^[0-9]{1,18}$/.test(id))) throw new UsageError('dead letter ids are integers');
    return { deleted: await deleteDeadLetters(db, { ids: positionals.map(BigInt) }) };
  },
};

const safetyCommand: Command = async (db, args, command) => {
  const { runSafetyCommand } = await import('./adctl-safety');
  return runSafetyCommand(
    db,
    command,
    args,
    (a, spec) => options(a, spec),
    (m) => new UsageError(m),
  );
};

const COMMANDS = new Map<string, Command>(
  Object.entries({
    ...organizationCommands,
    ...reviewCommands,
    ...campaignCommands,
    ...supplyCommands,
    ...webhookCommands,
    'export create': exportCommand,
    'export show': exportCommand,
    ...externalSupplyCommands,
    'demo seed': demoSeedCommand,
    ...deadLetterCommands,
    'safety explain': safetyCommand,
  }),
);

async function run(db: Db, argv: string[]): Promise<object> {
  const [noun, verb, ...rest] = argv;
  if (noun === 'login-link') return loginLink(db, argv.slice(1));
  if (noun === 'audit') return auditCommand(db, argv.slice(1));
  if (noun === 'relevance') {
    const { runRelevanceCommand } = await import('./adctl-relevance');
    return runRelevanceCommand(
      argv.slice(1),
      (a, spec) => options(a, spec),
      (m) => new UsageError(m),
    );
  }
  const command = `${noun ?? ''} ${verb ?? ''}`;
  const handler = COMMANDS.get(command);
  if (!handler) throw new UsageError(`unknown command: ${command.trim() || '(none)'}`);
  return handler(db, rest, command);
}

async function main() {
  // Asking for help is not a usage error: the usage on stdout, exit 0 (an unknown command still exits 2).
  if (process.argv.length === 3 && ['--help', '-h', 'help'].includes(process.argv[2])) {
    await new Promise<void>((resolve) => process.stdout.write(`${USAGE}\n`, () => resolve()));
    return 0;
  }
  const db = createDb(undefined, 2);
  try {
    // Every change an operator makes is theirs in the audit log: the login behind sudo, or the user running adctl.
    const operator = process.env.SUDO_USER || process.env.USER || 'operator';
    const result = await runAs({ type: 'operator', id: operator }, () => run(db, process.argv.slice(2)));
    // Exit only once the whole object is out: a large answer on a pipe is written in pieces.
    await new Promise<void>((resolve) => process.stdout.write(`${JSON.stringify(result)}\n`, () => resolve()));
    return 0;
  } catch (err) {
    process.stderr.write(`adctl: ${(err as Error).message}\n`);
    if (err instanceof UsageError) process.stderr.write(`${USAGE}\n`);
    return err instanceof UsageError ? 2 : 1;
  } finally {
    await closeDb(db);
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`adctl: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
