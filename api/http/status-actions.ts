import type { z } from 'zod';
import type { ErrorCode } from '../../lib/http/error-codes';
import { defineOperation, type Link, type Operation } from '../../lib/http/operations';

export const STATUS_ACTIONS = ['activate', 'pause', 'archive'] as const;
export type StatusAction = (typeof STATUS_ACTIONS)[number];
/** The status each action leads to (for ad groups and ads, whose rule is the parent campaign's). */
export const STATUS_OF_ACTION = { activate: 'active', pause: 'paused', archive: 'archived' } as const;

const capitalized = (word: string) => `${word[0].toUpperCase()}${word.slice(1)}`;
/** `ad group` -> `AdGroup`, as operation ids spell a noun. */
const operationNoun = (noun: string) => noun.split(' ').map(capitalized).join('');

/**
 * OpenAPI links from a response carrying a campaign, ad group or ad to the
 * operations on it: retrieve, update and the status actions (`GetAdGroup` ->
 * getAdGroup with `param` taken from `idPointer`).
 */
export function resourceLinks(noun: string, param: string, idPointer: string): Record<string, Link> {
  const opNoun = operationNoun(noun);
  return Object.fromEntries(
    ['get', 'update', ...STATUS_ACTIONS].map((verb) => [
      `${capitalized(verb)}${opNoun}`,
      { operationId: `${verb}${opNoun}`, parameters: { [param]: idPointer } },
    ]),
  );
}

/**
 * The spec's `POST {resource}/{id}/activate|pause|archive` of campaigns, ad
 * groups and ads: one builder for all three resources.
 */
export function statusActionOperations<Row>(resource: {
  /** Singular noun for ids and summaries: `campaign`, `ad group`, `ad`. */
  noun: string;
  /** Resource path with its id parameter, e.g. `/v1/campaigns/:campaign_id`. */
  path: string;
  tag: string;
  schema: z.ZodType;
  /** Error codes per action (besides not_found). */
  errors: Record<StatusAction, ErrorCode[]>;
  summaryNote?: Partial<Record<StatusAction, string>>;
  apply(organizationId: string, id: string, action: StatusAction): Promise<Row>;
  present(row: Row): unknown;
  organizationOf(res: import('express').Response): string;
}): Operation[] {
  const idParam = /:([A-Za-z_]+)$/.exec(resource.path)![1];
  const opNoun = operationNoun(resource.noun);
  return STATUS_ACTIONS.map((action) =>
    defineOperation({
      id: `${action}${opNoun}`,
      method: 'post',
      path: `${resource.path}/${action}`,
      tag: resource.tag,
      auth: 'apiKey',
      summary: `${capitalized(action)} ${resource.noun === 'ad' ? 'an' : 'a'} ${resource.noun}${resource.summaryNote?.[action] ?? ''}`,
      success: { status: 200, description: `The ${resource.noun}`, schema: resource.schema },
      errors: [...resource.errors[action], 'not_found'],
      handle: async ({ params }, _req, res) => resource.present(await resource.apply(resource.organizationOf(res), params[idParam], action)),
    }),
  );
}
