/** The in-house bidder's relevance scorer and headline truncation, without the index (inhouse.test.ts has the bidder end to end). */
import { relevance, conversationTerms, hintTerms, RELEVANCE_THRESHOLD } from '../../auction/inhouse/relevance';
import { truncateHeadline } from '../../auction/inhouse/bidder';

describe('relevance scorer', () => {
  const score = (hints: string[], ...messages: string[]) => relevance(hintTerms(hints), conversationTerms(messages.map((content) => ({ content }))));
  test('stemming and stop words: "running shoes" matches "I run in my shoe"', () => {
    expect(score(['running shoes'], 'Do I run in this shoe?', 'Yes.')).toBe(1);
  });
  test('half a hint in the latest exchange reaches the threshold; unrelated text does not', () => {
    expect(score(['marathon training plan'], 'what about a marathon plan', 'ok')).toBeGreaterThanOrEqual(RELEVANCE_THRESHOLD);
    expect(score(['marathon training'], 'what is the capital of France', 'Paris')).toBeLessThan(RELEVANCE_THRESHOLD);
  });
  test('older messages count half', () => {
    expect(score(['marathon'], 'marathon tips?', 'sure', 'and the weather?', 'sunny')).toBe(0.5);
  });
  test('truncation keeps words whole when it can', () => {
    expect(truncateHeadline('Run faster with our shoes today', 20)).toBe('Run faster with our…');
    expect(truncateHeadline('Short', 30)).toBe('Short');
  });
});
