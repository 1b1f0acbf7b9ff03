import { randomInt } from 'node:crypto';

/**
 * The seed of every randomized test (fast-check properties, PHP-generated sessions).
 * Fixed by default so a run is reproducible and CI never fails on a seed nobody chose;
 * `TEST_SEED=random` explores a fresh one (printed with each failing test), `TEST_SEED=<n>` replays one.
 */
export function testSeed(): number {
  const chosen = process.env.TEST_SEED;
  if (chosen === 'random') return randomInt(1, 2 ** 31);
  if (chosen !== undefined && chosen !== '') {
    const seed = Number(chosen);
    if (!Number.isSafeInteger(seed)) throw new Error(`TEST_SEED must be an integer or "random", not ${JSON.stringify(chosen)}`);
    return seed;
  }
  return DEFAULT_SEED;
}

const DEFAULT_SEED = 20_261_122;
