/**
 * Settings whose safety depends on the environment: lib/config.ts read afresh
 * under a given environment (jest.isolateModules), the real environment restored after.
 */
import { assertStartupConfig, DEVELOPMENT_TRACKING_SECRET, type config as Config } from '../lib/config';

function configUnder(env: Record<string, string | undefined>): typeof Config {
  const saved = { ...process.env };
  try {
    for (const [name, value] of Object.entries(env)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    let loaded!: typeof Config;
    jest.isolateModules(() => {
      loaded = (require('../lib/config') as { config: typeof Config }).config;
    });
    return loaded;
  } finally {
    process.env = saved;
  }
}

describe('imageFetch.allowLoopback', () => {
  test('is on only with IMAGE_FETCH_ALLOW_LOOPBACK=1 under NODE_ENV=test', () => {
    expect(configUnder({ NODE_ENV: 'test', IMAGE_FETCH_ALLOW_LOOPBACK: '1' }).imageFetch.allowLoopback).toBe(true);
  });

  test.each([
    ['production', 'production'],
    ['development', 'development'],
    ['unset', undefined],
  ])('is off under NODE_ENV %s even with IMAGE_FETCH_ALLOW_LOOPBACK=1', (_label, nodeEnv) => {
    expect(configUnder({ NODE_ENV: nodeEnv, IMAGE_FETCH_ALLOW_LOOPBACK: '1' }).imageFetch.allowLoopback).toBe(false);
  });

  test('is off under NODE_ENV=test without IMAGE_FETCH_ALLOW_LOOPBACK=1', () => {
    expect(configUnder({ NODE_ENV: 'test', IMAGE_FETCH_ALLOW_LOOPBACK: undefined }).imageFetch.allowLoopback).toBe(false);
  });
});

describe('timeouts', () => {
  test('come from the environment, with defaults', () => {
    const defaults = configUnder({ CAMPAIGN_CREATE_TIMEOUT_MS: undefined }).timeouts;
    expect(defaults.campaignCreateMs).toBe(25_000);
    expect(configUnder({ CAMPAIGN_CREATE_TIMEOUT_MS: '1234' }).timeouts.campaignCreateMs).toBe(1234);
  });
});

describe('the tracking signing key fails closed', () => {
  const DEV_KEYS = `dev1:${DEVELOPMENT_TRACKING_SECRET}`;
  test('development and test have the built-in key; anything else has none', () => {
    expect(configUnder({ NODE_ENV: 'development', TRACKING_SIGNING_KEYS: undefined }).signing.trackingKeys).toBe(DEV_KEYS);
    expect(configUnder({ NODE_ENV: 'test', TRACKING_SIGNING_KEYS: undefined }).signing.trackingKeys).toBe(DEV_KEYS);
    expect(configUnder({ NODE_ENV: undefined, TRACKING_SIGNING_KEYS: undefined }).signing.trackingKeys).toBeUndefined();
    expect(configUnder({ NODE_ENV: 'staging', TRACKING_SIGNING_KEYS: 'k1:a-real-secret-of-length' }).signing.trackingKeys).toBe('k1:a-real-secret-of-length');
  });

  test.each([
    [{ NODE_ENV: undefined }, /TRACKING_SIGNING_KEYS must be set/],
    [{ NODE_ENV: 'staging' }, /TRACKING_SIGNING_KEYS must be set/],
    [{ NODE_ENV: 'staging', TRACKING_SIGNING_KEYS: DEV_KEYS }, /development key/],
    [{ NODE_ENV: 'staging', TRACKING_SIGNING_KEYS: `k2:a-real-secret-of-length,${DEV_KEYS}` }, /development key/],
  ])('refused: %j', (env, message) => {
    expect(() => assertStartupConfig('api', env)).toThrow(message);
  });

  test.each([[{ NODE_ENV: 'development' }], [{ NODE_ENV: 'test' }], [{ NODE_ENV: 'staging', TRACKING_SIGNING_KEYS: 'k1:a-real-secret-of-length' }]])(
    'accepted: %j',
    (env) => {
      expect(() => assertStartupConfig('api', env)).not.toThrow();
    },
  );
});
