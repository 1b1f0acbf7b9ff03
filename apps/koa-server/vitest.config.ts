import { defineConfig } from 'vitest/config';
import { testTiers } from '../../vitest.tiers.js';

export default defineConfig({
  test: testTiers({
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/support/seed-fast-check.ts'],
    // Servers, databases and child processes: one file at a time on a 2-core machine.
    fileParallelism: false,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  }),
});
