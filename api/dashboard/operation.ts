import type { z } from 'zod';
import { defineOperation, type Operation } from '../../lib/http/operations';
import { DASHBOARD_PREFIX } from './session-cookie';

/** Where the dashboard's JSON endpoints live. */
export const DASHBOARD_API = `${DASHBOARD_PREFIX}/api`;

/** A dashboard JSON operation: `path` under DASHBOARD_API, tag Dashboard, the session cookie's auth. */
export function dashboardOperation<Q extends z.ZodObject | undefined = undefined, B extends z.ZodType | undefined = undefined>(
  op: Omit<Parameters<typeof defineOperation<Q, B>>[0], 'tag' | 'auth'>,
): Operation {
  return defineOperation<Q, B>({ ...op, path: `${DASHBOARD_API}${op.path}`, tag: 'Dashboard', auth: 'dashboard' });
}
