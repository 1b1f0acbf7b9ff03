import { afterEach, describe, expect, it, vi } from 'vitest';
import { missing } from '../src/testing/index.js';

describe('missing(): a test whose service is absent', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('runs when the service is there, whatever the flags', () => {
    vi.stubEnv('REQUIRE_SERVICES', '1');
    expect(missing('Redis', 'redis://127.0.0.1:6379')).toBe(false);
  });

  it("is skipped, with a one-line notice, on a developer's machine", () => {
    vi.stubEnv('REQUIRE_SERVICES', '');
    vi.stubEnv('CI', '');
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    expect(missing('PostgreSQL', undefined)).toBe(true);
    expect(log).toHaveBeenCalledWith(expect.stringMatching(/^\[skipped\] PostgreSQL is missing/));
    log.mockRestore();
  });

  it('fails under REQUIRE_SERVICES=1 or CI=true, naming the service', () => {
    vi.stubEnv('CI', '');
    vi.stubEnv('REQUIRE_SERVICES', '1');
    expect(() => missing('php', false)).toThrow(/^php is missing, and REQUIRE_SERVICES=1/);
    vi.stubEnv('REQUIRE_SERVICES', '');
    vi.stubEnv('CI', 'true');
    expect(() => missing('nginx', false)).toThrow(/^nginx is missing/);
  });
});
