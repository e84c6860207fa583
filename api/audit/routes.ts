import { z } from 'zod';
import type { Db } from '../../lib/db';
import { ACTOR_TYPES } from '../../lib/actor';
import type { Operation } from '../../lib/http/operations';
import { AUDIT_ENTITY_TYPES, listAuditLog, presentAuditEntry } from '../../domain/audit/log';
import { listOperation } from '../http/resource-operations';
import { listPageSchema } from '../http/pagination';

const changedFields = z
  .record(z.string(), z.unknown())
  .nullable()
  .describe('The fields that changed, by their stored names (all of them on a create; null before a create), secrets shown as [redacted]');

export const auditEntrySchema = z.object({
  id: z.string(),
  object: z.literal('audit_entry'),
  entity_type: z.enum(AUDIT_ENTITY_TYPES),
  entity_id: z.string().describe("The entity's id (an account's is the organization's public id, an API key's its public id)"),
  action: z.string().describe('created, updated, activated, paused, archived, reviewed, completed, blocked, rotated_out, revoked'),
  actor: z.object({
    type: z.enum(ACTOR_TYPES),
    id: z.string().nullable().describe("The API key's public id, the dashboard member's id, the reviewer's or operator's name, or the workflow"),
  }),
  before: changedFields,
  after: changedFields,
  created_at: z.int().describe('Unix seconds (UTC)'),
});

export const auditFilterSchema = z.object({
  entity_type: z.enum(AUDIT_ENTITY_TYPES).optional().describe('Only entries about this kind of entity'),
  entity_id: z.guid().optional().describe('Only entries about this entity'),
});

/** GET /v1/audit_log: the organization's own entries (documented extension; docs/api-behaviour.md, Audit log). */
export function auditOperations(db: Db): Operation[] {
  return [
    listOperation({
      id: 'listAuditLog',
      path: '/v1/audit_log',
      tag: 'Audit log',
      summary: "The organization's audit log: who changed which campaign, ad group, ad, account setting or API key, and how; newest first by default",
      filters: auditFilterSchema,
      description: 'A page of audit entries',
      schema: listPageSchema(auditEntrySchema),
      errors: ['invalid_value', 'not_found'],
      load: (organizationId, filters, page) => listAuditLog(db, organizationId, filters, page),
      present: presentAuditEntry,
    }),
  ];
}
