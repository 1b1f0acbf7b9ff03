import { defineConfig } from 'vitest/config';

/** The slow tier: the built program as a child process, a headless browser. `npm test` runs it alone, after the rest. */
const SLOW = ['test/**/*.process.test.ts', 'test/**/*.e2e.test.ts'];

// Set on each tier, not on the root: a root globalSetup would run once more around the tier's own.
const shared = {
  globalSetup: ['test/global-setup.ts'],
  // Child processes and a stub upstream: one file at a time on a 2-core machine.
  fileParallelism: false,
  testTimeout: 20_000,
};

export default defineConfig({
  test: {
    projects: [
      { test: { ...shared, name: 'fast', include: ['test/**/*.test.ts'], exclude: SLOW } },
      { test: { ...shared, name: 'slow', include: SLOW } },
    ],
  },
});
