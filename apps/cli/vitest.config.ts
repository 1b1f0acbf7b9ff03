import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Child processes and a stub upstream: one file at a time on a 2-core machine.
    fileParallelism: false,
    testTimeout: 20_000,
  },
});
