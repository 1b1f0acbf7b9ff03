/**
 * Whether the tests that need `service` must be skipped because it is `available` only as a falsy
 * value: pass the result to `describe.skipIf` / `it.skipIf`. On a developer's machine a missing
 * service skips them, named in one line; where services are required (`servicesRequired()`) it
 * throws, failing the file: a CI run without PostgreSQL, Redis, PHP, nginx or Chromium is red, never
 * green with tests left out.
 */
export function missing(service: string, available: unknown): boolean {
  if (available) return false;
  if (servicesRequired()) {
    throw new Error(`${service} is missing, and REQUIRE_SERVICES=1 (or CI=true) requires every service the tests use`);
  }
  console.log(`[skipped] ${service} is missing: its tests are skipped (REQUIRE_SERVICES=1 fails them instead)`);
  return true;
}

/** Set by .ci/run (REQUIRE_SERVICES=1), and by any CI that sets CI=true. */
export function servicesRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.REQUIRE_SERVICES === '1' || env.CI === 'true';
}
