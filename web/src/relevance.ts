/**
 * "Test your hints" on the campaign page: an ad group scored against a
 * conversation the advertiser types, by the auction's own scoring (the
 * dashboard's relevance test, POST /v1/ad_groups/{id}/test_relevance's twin).
 * Other hints can be tried without saving them.
 */
import { api, describeError } from './api';
import type { AdGroupView } from './creative';
import { h, notice } from './dom';

interface RelevanceResult {
  relevance: number;
  relevant: boolean;
  min_relevance: number;
  context_hints: string[];
}

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

export function relevanceTester(groups: AdGroupView[]): HTMLElement {
  const group = h('select', { id: 'rt-group', name: 'ad_group' }, ...groups.map((g) => h('option', { value: g.id }, g.name)));
  const user = h('textarea', {
    id: 'rt-user',
    name: 'user',
    rows: 2,
    required: true,
    maxlength: 2000,
    placeholder: 'How do I keep my sourdough starter alive?',
  });
  const assistant = h('textarea', { id: 'rt-assistant', name: 'assistant', rows: 2, maxlength: 2000, placeholder: "(optional) The assistant's answer" });
  const hints = h('textarea', { id: 'rt-hints', name: 'hints', rows: 2, placeholder: "One per line (optional: the ad group's own hints otherwise)" });
  const result = h('div', { 'aria-live': 'polite', class: 'relevance-result' });

  async function score(event: Event): Promise<void> {
    event.preventDefault();
    result.replaceChildren();
    const messages = [{ role: 'user', content: user.value }];
    if (assistant.value.trim()) messages.push({ role: 'assistant', content: assistant.value });
    const tried = lines(hints.value);
    try {
      const r = await api<RelevanceResult>('POST', `/ad-groups/${encodeURIComponent(group.value)}/test-relevance`, {
        messages,
        ...(tried.length ? { context_hints: tried } : {}),
      });
      result.append(
        notice(
          `Relevance ${r.relevance.toFixed(2)} (the bar is ${r.min_relevance.toFixed(2)}): ${r.relevant ? 'its ads could bid for this conversation' : 'not relevant enough to bid'}.`,
        ),
        h('p', { class: 'meta' }, `Hints scored: ${r.context_hints.join(', ')}`),
      );
    } catch (err) {
      result.append(notice(describeError(err), 'alert'));
    }
  }

  return h(
    'section',
    { class: 'relevance-test', 'aria-labelledby': 'rt-heading' },
    h('h2', { id: 'rt-heading' }, 'Test your hints'),
    h('p', {}, 'Score an ad group against a conversation before spending: the auction scores it the same way. Nothing is saved.'),
    h(
      'form',
      { class: 'controls', onsubmit: (e: Event) => void score(e) },
      h('label', { for: 'rt-group' }, 'Ad group'),
      group,
      h('label', { for: 'rt-user' }, 'The user says'),
      user,
      h('label', { for: 'rt-assistant' }, 'The assistant answers'),
      assistant,
      h('label', { for: 'rt-hints' }, 'Try other hints'),
      hints,
      h('button', { type: 'submit' }, 'Score'),
    ),
    result,
  );
}
