import { defineConfig } from 'vitest/config';
import { testTiers } from '../../vitest.tiers.js';

export default defineConfig({
  test: testTiers({
    globalSetup: ['test/global-setup.ts'],
    // Child processes and a stub upstream: one file at a time on a 2-core machine.
    fileParallelism: false,
    testTimeout: 20_000,
  }),
});
