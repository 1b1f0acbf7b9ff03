import { fileURLToPath } from 'node:url';
import { assertBuilt } from '@cotizaciones/adapters/build';
import { setupTestEnvironment } from '@cotizaciones/adapters/testing/environment';

/** The packages whose dist/ the process tests run (the tool's main.js, the runtime, the SQLite worker). */
const BUILT = ['apps/cli', 'packages/runtime', 'packages/adapters', 'packages/core'];

export default () => {
  // Process tests run dist/main.js: one built from other sources would test old code, silently.
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  assertBuilt(
    BUILT.map((dir) => `${root}${dir}`),
    'the built code',
  );
  return setupTestEnvironment('cli');
};
