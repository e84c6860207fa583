import { api, describeError } from '../api';
import { dateTime, h, notice, render } from '../dom';

interface AuditEntry {
  id: string;
  entity_type: string;
  entity_id: string;
  action: string;
  actor: { type: string; id: string | null };
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  created_at: number;
}

interface AuditPage {
  data: AuditEntry[];
  has_more: boolean;
  last_id: string | null;
}

const ACTORS: Record<string, string> = { api_key: 'API key', dashboard_user: 'Dashboard member', staff: 'Reviewer', operator: 'Operator', system: 'Platform' };
const shown = (value: unknown) => (value === undefined ? '–' : JSON.stringify(value));

/** Each changed field as `field: before → after`. */
function changeList(entry: AuditEntry): HTMLElement {
  const fields = Object.keys(entry.after ?? entry.before ?? {});
  return h(
    'ul',
    { class: 'changes' },
    ...fields.map((field) => h('li', {}, h('code', {}, field), `: ${shown(entry.before?.[field])} → ${shown(entry.after?.[field])}`)),
  );
}

/** The organization's audit log, newest first, 50 entries a page ("Older" loads the next). */
export async function activityPage(main: HTMLElement, after?: string): Promise<void> {
  let page: AuditPage;
  try {
    page = await api<AuditPage>('GET', `/audit-log?limit=50${after ? `&after=${encodeURIComponent(after)}` : ''}`);
  } catch (err) {
    render(main, h('h1', {}, 'Activity'), notice(describeError(err), 'alert'));
    return;
  }
  const rows = page.data.map((entry) =>
    h(
      'tr',
      { 'data-entry-id': entry.id },
      h('td', {}, dateTime(entry.created_at)),
      h('td', {}, `${entry.entity_type.replace('_', ' ')} `, h('code', {}, entry.entity_id)),
      h('th', { scope: 'row' }, entry.action.replace('_', ' ')),
      h('td', {}, `${ACTORS[entry.actor.type] ?? entry.actor.type}${entry.actor.id ? ` ${entry.actor.id}` : ''}`),
      h('td', {}, changeList(entry)),
    ),
  );
  const older = page.has_more && page.last_id ? h('button', { type: 'button', onclick: () => void activityPage(main, page.last_id!) }, 'Older') : null;
  render(
    main,
    h('h1', {}, 'Activity'),
    h('p', {}, 'Every change to your campaigns, ad groups, ads, account settings and API keys: who made it, when, and what changed.'),
    h(
      'div',
      { class: 'scroll' },
      h(
        'table',
        { class: 'activity' },
        h('caption', {}, 'Changes, newest first'),
        h('thead', {}, h('tr', {}, ...['When', 'What', 'Change', 'Who', 'Fields'].map((label) => h('th', { scope: 'col' }, label)))),
        h('tbody', {}, ...rows),
      ),
    ),
    older,
  );
}
