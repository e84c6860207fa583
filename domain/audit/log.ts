/**
 * The audit log (issue 50): every change to campaigns, ad groups, ads, account
 * settings, API keys, webhook endpoints, publisher settings and DSPs, written by `recordChange`
 * inside the transaction of the change itself (a rolled-back change leaves no
 * entry, a committed one always has its entry): who (lib/actor.ts), when, what,
 * and the changed fields before and after. Organizations read their own entries
 * (GET /v1/audit_log, the dashboard); operators read all of them (`adctl audit`).
 */
import { currentActor, type Actor } from '../../lib/actor';
import { executeSql, type Db, type Prisma, type SqlExecutor } from '../../lib/db';
import { paginate, type PageRequest } from '../pagination';
import { recordWebhookEvents, webhookEventsOf } from '../webhooks/events';

export const AUDIT_ENTITY_TYPES = ['campaign', 'ad_group', 'ad', 'account', 'api_key', 'webhook_endpoint', 'publisher', 'dsp'] as const;
export type AuditEntityType = (typeof AUDIT_ENTITY_TYPES)[number];

/** A snapshot's field values, as JSON holds them. */
export type AuditValue = string | number | boolean | null | AuditValue[] | { [key: string]: AuditValue };
export type AuditFields = Record<string, AuditValue>;

export interface Change {
  /** The organization that owns the entity; null for the platform's own (publishers, DSPs). */
  organizationId: string | null;
  entity: { type: AuditEntityType; id: string };
  /** What happened, in the past tense: created, updated, activated, paused, archived, reviewed, completed, blocked, rotated_out, revoked, disabled, deleted, secret_rolled. */
  action: string;
  /** The entity before (null: created) and after (null: gone); rows or plain objects, camelCase or snake_case. */
  before: object | null;
  after: object | null;
  /** Default: the actor bound around the caller (lib/actor.ts). */
  actor?: Actor;
  /** The campaign an ad or ad group belongs to: the order its webhook events are delivered in (domain/webhooks/events.ts). */
  campaignId?: string;
}

/** A change as the log keeps it: only the fields that changed (all of them on a create), secrets masked. */
export interface RecordedChange {
  organizationId: string | null;
  entityType: AuditEntityType;
  entityId: string;
  action: string;
  actor: Actor;
  before: AuditFields | null;
  after: AuditFields | null;
  campaignId?: string;
}

/** Row bookkeeping, not what anyone changed (by stored name). */
const OMITTED = new Set(['id', 'organization_id', 'created_at', 'updated_at', 'txid']);
/** Stored secrets (hashes included): a change shows, never the value. */
const SECRETS = new Set(['secret_hash', 'key_hash', 'api_key', 'signing_secret', 'previous_signing_secret']);
export const REDACTED = '[redacted]';

const snakeCase = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function jsonValue(value: unknown): AuditValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(jsonValue);
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonValue(v)]));
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return null; // functions and symbols are not fields
}

/** A row's fields by their stored (snake_case) names, relations and bookkeeping left out. */
function fieldsOf(row: object): Map<string, AuditValue> {
  const fields = new Map<string, AuditValue>();
  for (const [key, value] of Object.entries(row)) {
    const name = snakeCase(key);
    if (OMITTED.has(name) || value === undefined) continue;
    // Included relations (an ad's asset, a key's organization) are not the entity's own fields.
    if (value !== null && typeof value === 'object' && !(value instanceof Date) && !Array.isArray(value) && name !== 'approved_creative') continue;
    fields.set(name, jsonValue(value));
  }
  return fields;
}

const masked = (name: string, value: AuditValue): AuditValue => (SECRETS.has(name) && value !== null ? REDACTED : value);

/** What the log keeps of a change: on an update only the fields whose value differs; null when nothing did. */
export function recordedChange(change: Change): RecordedChange | null {
  const before = change.before ? fieldsOf(change.before) : null;
  const after = change.after ? fieldsOf(change.after) : null;
  const keep = (fields: typeof before, keys: Iterable<string>): AuditFields | null => {
    if (!fields) return null;
    const out: AuditFields = {};
    for (const key of keys) if (fields.has(key)) out[key] = masked(key, fields.get(key)!);
    return out;
  };
  let keys: string[];
  if (before && after) {
    keys = [...after.keys()].filter((key) => before.has(key) && JSON.stringify(before.get(key)) !== JSON.stringify(after.get(key)));
    if (keys.length === 0) return null;
  } else keys = [...(before ?? after ?? new Map<string, AuditValue>()).keys()];
  return {
    organizationId: change.organizationId,
    entityType: change.entity.type,
    entityId: change.entity.id,
    action: change.action,
    actor: change.actor ?? currentActor(),
    before: keep(before, keys),
    after: keep(after, keys),
    ...(change.campaignId !== undefined && { campaignId: change.campaignId }),
  };
}

/**
 * Records changes in the caller's transaction (a Prisma transaction or a `pg`
 * client inside one), in one statement, with the webhook events they raise
 * (domain/webhooks/events.ts, the same transaction). An update that changed no
 * field is left out. An API key actor is kept as the key's public id.
 */
export async function recordChanges(sql: SqlExecutor, changes: Change[]): Promise<RecordedChange[]> {
  const recorded = changes.map(recordedChange).filter((c): c is RecordedChange => c !== null);
  if (recorded.length === 0) return recorded;
  const rows = recorded.map((c) => ({
    organization_id: c.organizationId,
    entity_type: c.entityType,
    entity_id: c.entityId,
    action: c.action,
    actor_type: c.actor.type,
    actor_id: c.actor.id,
    before: c.before,
    after: c.after,
  }));
  // clock_timestamp(), not now(): the time of the change itself, not of its transaction's start.
  await executeSql(
    sql,
    `INSERT INTO audit_log (organization_id, entity_type, entity_id, action, actor_type, actor_id, "before", "after", created_at)
     SELECT x.organization_id, x.entity_type, x.entity_id, x.action, x.actor_type,
            CASE WHEN x.actor_type = 'api_key' THEN COALESCE((SELECT k.public_id::text FROM api_keys k WHERE k.id::text = x.actor_id), x.actor_id) ELSE x.actor_id END,
            x."before", x."after", clock_timestamp() AT TIME ZONE 'UTC'
       FROM jsonb_to_recordset($1::jsonb) AS x(organization_id uuid, entity_type text, entity_id text, action text,
            actor_type text, actor_id text, "before" jsonb, "after" jsonb)`,
    [JSON.stringify(rows)],
  );
  await recordWebhookEvents(sql, recorded.flatMap(webhookEventsOf));
  return recorded;
}

export const recordChange = (sql: SqlExecutor, change: Change) => recordChanges(sql, [change]);

export type AuditEntryRow = Prisma.AuditEntryModel;

/** The log's entry as /v1, the dashboard and adctl show it. */
export function presentAuditEntry(row: AuditEntryRow) {
  return {
    id: row.id,
    object: 'audit_entry' as const,
    entity_type: row.entityType as AuditEntityType,
    entity_id: row.entityId,
    action: row.action,
    actor: { type: row.actorType as Actor['type'], id: row.actorId },
    before: (row.before ?? null) as AuditFields | null,
    after: (row.after ?? null) as AuditFields | null,
    created_at: Math.floor(row.createdAt.getTime() / 1000),
  };
}

export interface AuditFilters {
  entity_type?: AuditEntityType;
  entity_id?: string;
}

const filterWhere = (filters: AuditFilters): Prisma.AuditEntryWhereInput => ({
  ...(filters.entity_type !== undefined && { entityType: filters.entity_type }),
  ...(filters.entity_id !== undefined && { entityId: filters.entity_id.toLowerCase() }),
});

/** A page of the organization's own entries, newest first by default (keyset on created_at, id like every /v1 list). */
export async function listAuditLog(db: Db, organizationId: string, filters: AuditFilters, page: PageRequest) {
  const scope: Prisma.AuditEntryWhereInput = { organizationId, ...filterWhere(filters) };
  return paginate(
    page,
    (id) => db.auditEntry.findFirst({ where: { organizationId, id }, select: { id: true, createdAt: true } }),
    ({ where, orderBy, take }) => db.auditEntry.findMany({ where: { AND: [scope, where] }, orderBy, take }),
  );
}

/** Every organization's entries and the platform's (operators: `adctl audit`), newest first. */
export async function listAllAuditLog(db: Db, filters: AuditFilters & { organizationId?: string; platformOnly?: boolean }, limit: number) {
  const rows = await db.auditEntry.findMany({
    where: {
      ...filterWhere(filters),
      ...(filters.organizationId !== undefined && { organizationId: filters.organizationId }),
      ...(filters.platformOnly && { organizationId: null }),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit,
  });
  return rows.map(presentAuditEntry);
}
