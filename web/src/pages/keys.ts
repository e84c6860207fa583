import { api, describeError } from '../api';
import { dateTime, h, notice, render } from '../dom';

interface KeyRecord {
  public_id: string;
  name: string;
  is_active: boolean;
  key_preview: string;
  last_used: string | null;
  expires_at: string | null;
  created_at: string;
}

const iso = (value: string | null) => (value ? dateTime(Date.parse(value) / 1000) : '–');

function stateOf(key: KeyRecord): string {
  if (key.is_active) return 'Active';
  if (key.expires_at && Date.parse(key.expires_at) > Date.now()) return `Rotated out: valid until ${iso(key.expires_at)}`;
  return 'Revoked or expired';
}

/** API keys (owners and admins): list, create or rotate (the secret shown once), revoke. */
export async function keysPage(main: HTMLElement, flash?: HTMLElement): Promise<void> {
  let keys: KeyRecord[];
  try {
    ({ api_keys: keys } = await api<{ api_keys: KeyRecord[] }>('GET', '/api-keys'));
  } catch (err) {
    render(main, h('h1', {}, 'API keys'), notice(describeError(err), 'alert'));
    return;
  }
  const status = h('div', { 'aria-live': 'polite' });
  const nameInput = h('input', { id: 'key-name', name: 'name', maxlength: 100, autocomplete: 'off' });
  // The two actions show their own failures: neither rejects.
  const create = async () => {
    status.replaceChildren();
    try {
      const created = await api<{ api_key: KeyRecord & { secret: string }; previous_key_expires_at: string | null }>('POST', '/api-keys', {
        name: nameInput.value,
      });
      // The secret exists only in this response: shown here once, gone on the next load.
      const panel = h(
        'section',
        { class: 'secret', 'aria-labelledby': 'secret-heading' },
        h('h2', { id: 'secret-heading' }, 'Your new API key'),
        h('p', {}, 'Copy it now: it is shown only once.'),
        h('p', {}, h('code', { 'data-secret': 'true' }, created.api_key.secret)),
        created.previous_key_expires_at
          ? h('p', {}, `The previous key stays valid until ${iso(created.previous_key_expires_at)} (30-minute grace window).`)
          : null,
      );
      await keysPage(main, panel);
    } catch (err) {
      status.append(notice(describeError(err), 'alert'));
    }
  };
  const revoke = async (key: KeyRecord) => {
    status.replaceChildren();
    try {
      await api('DELETE', `/api-keys/${key.public_id}`);
      await keysPage(main, notice(`Key ${key.key_preview} revoked.`));
    } catch (err) {
      status.append(notice(describeError(err), 'alert'));
    }
  };
  const form = h(
    'form',
    {
      class: 'create-key',
      onsubmit: (event: Event) => {
        event.preventDefault();
        void create();
      },
    },
    h('label', { for: 'key-name' }, 'Name (optional)'),
    nameInput,
    h('button', { type: 'submit', class: 'primary' }, keys.some((k) => k.is_active) ? 'Rotate key' : 'Create key'),
  );

  const rows = keys.map((key) => keyRow(key, revoke));
  render(
    main,
    h('h1', {}, 'API keys'),
    flash ?? null,
    h('p', {}, 'One key is active at a time. Creating a key rotates the active one out; it keeps working for 30 minutes. Revoking is immediate.'),
    form,
    status,
    h(
      'div',
      { class: 'scroll' },
      h(
        'table',
        { class: 'keys' },
        h('caption', {}, 'Keys of your organization, newest first'),
        h('thead', {}, h('tr', {}, ...['Name', 'Key', 'State', 'Last used', 'Created', 'Actions'].map((label) => h('th', { scope: 'col' }, label)))),
        h('tbody', {}, ...rows),
      ),
    ),
  );
}

/** One key's row, with Revoke while it still works. */
function keyRow(key: KeyRecord, revoke: (key: KeyRecord) => Promise<void>): HTMLElement {
  const live = key.is_active || (key.expires_at !== null && Date.parse(key.expires_at) > Date.now());
  const revokeButton = h(
    'button',
    { type: 'button', class: 'danger', 'aria-label': `Revoke key ${key.name || key.key_preview}`, onclick: () => void revoke(key) },
    'Revoke',
  );
  return h(
    'tr',
    { 'data-key-id': key.public_id },
    h('th', { scope: 'row' }, key.name || '(unnamed)'),
    h('td', {}, h('code', {}, key.key_preview)),
    h('td', {}, stateOf(key)),
    h('td', {}, iso(key.last_used)),
    h('td', {}, iso(key.created_at)),
    h('td', {}, live ? revokeButton : ''),
  );
}
