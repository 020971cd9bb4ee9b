import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The JSON report lets .ci/run print one plain "N passed, N failed" line per run.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          // Browser tests (test/e2e) and workflow tests (test/workflows) share the integration setup: one
          // Temporal dev server, database template and workflow bundle.
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts', 'test/workflows/**/*.test.ts'],
          globalSetup: ['test/integration/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 120_000,
          // A poll waits for a platform, a worker or a browser on a shared two-core machine: a second, vitest's
          // default, runs out under load. A poll that passes returns as soon as it does.
          expect: { poll: { timeout: 5_000 } },
          // Two cores: two files at a time keeps PGlite start-up and Temporal polling from starving each other.
          maxWorkers: 2,
        },
      },
    ],
  },
});
