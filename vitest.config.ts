import { defineConfig } from 'vitest/config';

/**
 * The integration files the `integration-postgres` project runs once more on PostgreSQL: those
 * that keep the most in the store, and the sync core's persistence (persistence, fresh-sync,
 * update-shape; pg-durability and async-persistence run on PostgreSQL in the integration project).
 */
const postgresPass = [
  'agent-routes',
  'agents-list',
  'annotations-api',
  'asides',
  'audit-log',
  'authorship',
  'invites',
  'discard-reason',
  'fresh-sync',
  'pages',
  'page-items',
  'persistence',
  'reference-agent',
  'run-activity',
  'run-items',
  'run-lease',
  'run-review',
  'run-review-typing',
  'run-revert',
  'runs-send',
  'send-run',
  'token-lifecycle',
  'update-shape',
  'variants',
  'versions',
];

export default defineConfig({
  test: {
    projects: [
      {
        // Property tests run hundreds of cases; on a loaded two-core machine that takes seconds.
        test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], environment: 'node', testTimeout: 30_000 },
      },
      {
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        // The integration tests that keep the most in the store, again with every test server on
        // PostgreSQL (tests/helpers/server.ts); the store's own tests run both backends already.
        test: {
          name: 'integration-postgres',
          include: postgresPass.map((name) => `tests/integration/${name}.test.ts`),
          environment: 'node',
          env: { TANDEM_TEST_STORE: 'postgres' },
          globalSetup: ['tests/helpers/postgres-global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 90_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
