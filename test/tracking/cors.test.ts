/**
 * The trackers answer a chat host's page on any origin (the SDK posts feedback and poll
 * votes from the browser): a preflight is allowed for GET and POST with a JSON body,
 * every answer is readable by any origin, credentials never. Other paths allow nothing.
 */
import { useHarness } from '../support/harness';

const h = useHarness();
const ORIGIN = 'http://127.0.0.1:5555';

const preflight = (path: string) =>
  fetch(`${h.url}${path}`, {
    method: 'OPTIONS',
    headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
  });

test.each(['/api/v1/tracking/feedback', '/api/v1/tracking/sponsored-polls/vote', '/api/v1/tracking/sponsored-polls/results'])(
  'preflight of %s',
  async (path) => {
    const res = await preflight(path);
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST');
    expect(res.headers.get('access-control-allow-headers')).toBe('Content-Type');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  },
);

test('an answer of a tracker, even an error, is readable by the page', async () => {
  const res = await fetch(`${h.url}/api/v1/tracking/feedback?token=forged`, {
    method: 'POST',
    headers: { Origin: ORIGIN, 'Content-Type': 'application/json' },
    body: JSON.stringify({ feedback: 'thumbs_up' }),
  });
  expect(res.status).toBe(404);
  expect(res.headers.get('access-control-allow-origin')).toBe('*');
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
  const results = await fetch(`${h.url}/api/v1/tracking/sponsored-polls/results?token=forged`, { headers: { Origin: ORIGIN } });
  expect(results.status).toBe(404);
  expect(results.headers.get('access-control-allow-origin')).toBe('*');
});

test('no other path allows another origin', async () => {
  const res = await preflight('/v1/campaigns');
  expect(res.headers.get('access-control-allow-origin')).toBeNull();
  const dashboard = await preflight('/api/organizations/x/campaigns');
  expect(dashboard.headers.get('access-control-allow-origin')).toBeNull();
});
