import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who makes a change, for the audit log (domain/audit): an organization's API
 * key (its public id), a dashboard member or staff reviewer, an operator
 * through adctl, or the platform itself (a workflow: `id` names it). Bound once
 * at each edge (the API key and session auth, adctl, a workflow's activity),
 * so the write paths below need not each carry it.
 */
export type ActorType = 'api_key' | 'dashboard_user' | 'staff' | 'operator' | 'system';

export interface Actor {
  type: ActorType;
  /** The key's id (the audit log shows its public id), the member's id, the reviewer's or operator's name, the workflow; null when unknown. */
  id: string | null;
}

export const ACTOR_TYPES: readonly ActorType[] = ['api_key', 'dashboard_user', 'staff', 'operator', 'system'];

const SYSTEM: Actor = { type: 'system', id: null };
const current = new AsyncLocalStorage<Actor>();

/** Runs `work` (and everything it awaits) as `actor`. */
export function runAs<T>(actor: Actor, work: () => T): T {
  return current.run(actor, work);
}

/** The actor bound around the caller, or the platform when none is. */
export function currentActor(): Actor {
  return current.getStore() ?? SYSTEM;
}
