/**
 * Two projects, both run by `jest` (npm test):
 *  - unit: `*.unit.test.ts`, tests that need no service (no PostgreSQL,
 *    ClickHouse, Temporal, worker or api process): `npm run test:unit`, in seconds.
 *  - service: every other test, against the real services started by
 *    scripts/bootstrap.sh, with this run's worker and Stripe emulator (global setup).
 */
const shared = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  testTimeout: 60000,
};

module.exports = {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['**/*.unit.test.ts'] },
    {
      ...shared,
      displayName: 'service',
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '\\.unit\\.test\\.ts$'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
  testTimeout: 60000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
