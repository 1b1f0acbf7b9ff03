import { defineConfig } from 'vitest/config';
import { testTiers } from '../../vitest.tiers.js';

export default defineConfig({
  test: testTiers({
    globalSetup: ['test/global-setup.ts'],
    // Suites share real databases; files run one at a time to keep timings honest on 2 cores.
    fileParallelism: false,
    testTimeout: 15_000,
    hookTimeout: 15_000,
  }),
});
