import { defineConfig } from 'vitest/config';

/** The slow tier: the built program as a child process, a headless browser. `npm test` runs it alone, after the rest. */
const SLOW = ['test/**/*.process.test.ts', 'test/**/*.e2e.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    // Child processes and a stub upstream: one file at a time on a 2-core machine.
    fileParallelism: false,
    testTimeout: 20_000,
    projects: [
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: SLOW } },
      { extends: true, test: { name: 'slow', include: SLOW } },
    ],
  },
});
