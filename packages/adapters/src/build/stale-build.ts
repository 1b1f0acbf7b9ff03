import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
// The one hash the builds stamp (scripts/stamp-build.mjs) and the ready step checks: the work tree's own
// script, reached the same way from src/ and dist/. Only tests, the bench and the worker's check from
// src/ load this file; a deployed bundle never does.
import { sourceHash } from '../../../../scripts/source-hash.mjs';

/**
 * Why a package's `dist/` cannot stand for its `src/`: missing, or built from other sources
 * (the build stamps a hash of `src/` in `dist/.source-hash`). Undefined when the build is current.
 * What runs built code from tests or the bench (a worker thread, a server process) checks this
 * first rather than silently run old code.
 */
export function staleBuild(packageDir: string): string | undefined {
  const stamp = join(packageDir, 'dist', '.source-hash');
  if (!existsSync(stamp)) return `${packageDir}/dist is missing or unstamped: run \`npx turbo run build\` first`;
  if (readFileSync(stamp, 'utf8').trim() !== sourceHash(join(packageDir, 'src'))) {
    return `${packageDir}/src changed after its last build: run \`npx turbo run build\` first`;
  }
  return undefined;
}

/** Throws, naming each stale package, unless every one of `packageDirs` is built from its current sources. */
export function assertBuilt(packageDirs: readonly string[], what: string): void {
  const stale = packageDirs.map(staleBuild).filter((reason) => reason !== undefined);
  if (stale.length > 0) throw new Error(`${what} does not match its sources:\n${stale.join('\n')}`);
}
