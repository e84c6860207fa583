import { api, describeError } from '../api';
import { h, notice, render } from '../dom';

/** GET /dashboard/api/account (api/dashboard/account.ts). */
interface AccountView {
  name: string;
  domain: string | null;
  ad_account: { id: string; name: string; website: string | null; url: string; preview_url: string | null; logo_path: string | null } | null;
  billing_configured: boolean;
  payment_method_id: string | null;
  can_edit: boolean;
}

/** What is set now: the website a click goes to, the logo of text placements, the card. */
function summary(view: AccountView): HTMLElement {
  const account = view.ad_account;
  const logo = account?.logo_path
    ? h('img', { src: account.logo_path, alt: `Logo of ${view.name}`, class: 'logo' })
    : account?.preview_url
      ? h('span', { class: 'url' }, account.preview_url)
      : 'None: chat cards without an image cannot serve in text placements';
  const website =
    account?.website ??
    (view.domain ? `None (the organization's domain ${view.domain} is used)` : 'None: ads without a target URL have nowhere to send a click');
  const card = view.billing_configured ? (view.payment_method_id ?? 'Set') : 'None: campaigns cannot be created';
  return h(
    'dl',
    { class: 'settings', 'aria-label': 'Current settings' },
    h('dt', {}, 'Website'),
    h('dd', { 'data-setting': 'website' }, website),
    h('dt', {}, 'Logo'),
    h('dd', { 'data-setting': 'logo' }, logo),
    h('dt', {}, 'Default card'),
    h('dd', { 'data-setting': 'payment-method' }, card),
  );
}

/** The website and card form: only what changed is sent; an emptied website is removed. */
function settingsForm(main: HTMLElement, view: AccountView, status: HTMLElement): HTMLElement {
  const website = h('input', {
    id: 'website',
    name: 'url',
    type: 'url',
    inputmode: 'url',
    maxlength: 2048,
    placeholder: 'https://shop.example',
    value: view.ad_account?.website ?? '',
  });
  const card = h('input', {
    id: 'payment-method',
    name: 'payment_method',
    maxlength: 103,
    autocomplete: 'off',
    placeholder: 'pm_...',
    value: view.payment_method_id ?? '',
  });
  const save = async () => {
    status.replaceChildren();
    const body: Record<string, string | null> = {};
    const url = website.value.trim();
    if (url !== (view.ad_account?.website ?? '')) body.url = url || null;
    const pm = card.value.trim();
    if (pm && pm !== view.payment_method_id) body.payment_method = pm;
    try {
      await api('POST', '/account', body);
      await accountPage(main, notice('Saved. Ads use the new settings within seconds.'));
    } catch (err) {
      status.append(notice(describeError(err), 'alert'));
    }
  };
  return h(
    'form',
    {
      class: 'account-form',
      'aria-labelledby': 'settings-heading',
      onsubmit: (e: Event) => {
        e.preventDefault();
        void save();
      },
    },
    h('h2', { id: 'settings-heading' }, 'Website and card'),
    h('label', { for: 'website' }, 'Website (where a click goes when an ad names no target URL)'),
    website,
    h('label', { for: 'payment-method' }, 'Default card (Stripe payment method id)'),
    card,
    h('div', {}, h('button', { type: 'submit', class: 'primary' }, 'Save')),
  );
}

/** The logo form: one PNG, JPEG or WebP file of at most 5 MB, sent as multipart. */
function logoForm(main: HTMLElement, status: HTMLElement): HTMLElement {
  const file = h('input', { id: 'logo', name: 'file', type: 'file', accept: 'image/png,image/jpeg,image/webp' });
  const upload = async () => {
    status.replaceChildren();
    const chosen = file.files?.[0];
    if (!chosen) return void status.append(notice('Choose an image first.', 'alert'));
    const form = new FormData();
    form.append('file', chosen);
    try {
      await api('POST', '/account/logo', form);
      await accountPage(main, notice('Logo uploaded. Text placements show it within seconds.'));
    } catch (err) {
      status.append(notice(describeError(err), 'alert'));
    }
  };
  return h(
    'form',
    {
      class: 'account-form',
      'aria-labelledby': 'logo-heading',
      onsubmit: (e: Event) => {
        e.preventDefault();
        void upload();
      },
    },
    h('h2', { id: 'logo-heading' }, 'Logo'),
    h('label', { for: 'logo' }, 'Logo image (PNG, JPEG or WebP, at most 5 MB)'),
    file,
    h('div', {}, h('button', { type: 'submit', class: 'primary' }, 'Upload logo')),
  );
}

/** The Account page: every member sees the settings; owners and admins change them. */
export async function accountPage(main: HTMLElement, flash?: HTMLElement): Promise<void> {
  let view: AccountView;
  try {
    view = await api<AccountView>('GET', '/account');
  } catch (err) {
    render(main, h('h1', {}, 'Account'), notice(describeError(err), 'alert'));
    return;
  }
  const status = h('div', { 'aria-live': 'polite', class: 'form-status' });
  const editable = view.can_edit && view.ad_account !== null;
  render(
    main,
    h('h1', {}, 'Account'),
    flash ?? null,
    h('p', {}, `${view.name}: what your ads need to serve. A chat card needs a landing page (its target URL or this website) and an image or this logo.`),
    summary(view),
    status,
    editable ? settingsForm(main, view, status) : null,
    editable ? logoForm(main, status) : null,
    view.can_edit ? null : h('p', { class: 'meta' }, 'Only owners and admins can change these settings.'),
    view.ad_account ? null : h('p', { class: 'meta' }, 'This organization has no ad account.'),
  );
}
