import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { MAIN, startProcess } from './support/process.js';

/** Runs the built server with `env` only; its exit code and everything it printed. */
async function run(env: Record<string, string>) {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

describe('a bad configuration, in the server process', () => {
  it('stops with exit code 1 and one line per bad variable, printing no secret', async () => {
    const { code, stdout, stderr } = await run({
      NODE_ENV: 'production',
      PORT: 'http',
      UPSTREAM_BASE_URL: 'https://svc-user:SECRET-upstream-pw@api.example.com/v1',
      UPSTREAM_TOKEN: 'SECRET-upstream-token',
      SESSION_KEYS: 'SECRET-short',
      ACTIVITY_LOG_URL: 'ftp://log:SECRET-db-pw@db.example.com/log',
      REDIS_URL: 'redis://:SECRET-redis-pw@cache.example.com:6379?password=SECRET-q',
      SESSION_STORE: 'cookie',
      UPSTREAM_TOKEN_SESSION_KEY: 'token',
      METRICS_TOKEN: 'SECRET-metrics',
      TRUST_PROXY: 'true',
    });
    expect(code).toBe(1);
    expect(stderr.trimEnd().split('\n')).toEqual([
      'configuration error: UPSTREAM_BASE_URL must not contain a user name or password (user:password@): give the token in UPSTREAM_TOKEN or UPSTREAM_TOKEN_URL (got "https://api.example.com/v1")',
      'configuration error: UPSTREAM_TOKEN_SESSION_KEY must not be set with UPSTREAM_TOKEN: set only one token source',
      'configuration error: ACTIVITY_LOG_URL must be sqlite:<file>, postgres://…, mysql://… or memory: (got "ftp://db.example.com/log")',
      'configuration error: PORT must be an integer from 0 to 65535 (0: any free port) (got "http")',
      'configuration error: SESSION_KEYS must be comma-separated keys of 16 characters or more',
      'configuration error: TRUST_PROXY must be the reverse proxies\' addresses, CIDR ranges or loopback/linklocal/uniquelocal, comma-separated (e.g. 10.0.0.5,10.0.1.0/24), or outside production a count from 0 to 10 (got "true")',
      'configuration error: METRICS_TOKEN must be a token of 16 characters or more',
      'configuration error: ALLOWED_ORIGINS is required in production: the origins whose pages may POST, e.g. https://app.example.com',
    ]);
    expect(stdout + stderr).not.toMatch(/SECRET|svc-user/);
  });

  it("refuses the user's upstream token in a cookie session", async () => {
    const { code, stderr } = await run({ UPSTREAM_BASE_URL: 'http://127.0.0.1:9', UPSTREAM_TOKEN_SESSION_KEY: 'token' });
    expect(code).toBe(1);
    expect(stderr).toBe(
      'configuration error: UPSTREAM_TOKEN_SESSION_KEY needs server-side sessions (SESSION_STORE=redis or php): with SESSION_STORE=cookie the token would sit in a readable cookie\n',
    );
  });
});

describe('GET /metrics in production', () => {
  const production = {
    NODE_ENV: 'production',
    UPSTREAM_BASE_URL: 'http://127.0.0.1:9',
    UPSTREAM_TOKEN: 'SECRET-upstream-token',
    SESSION_KEYS: 'a-production-session-key-0123456789',
    TRUST_PROXY: 'loopback',
    ALLOWED_ORIGINS: 'https://app.example.com',
    ACTIVITY_LOG_URL: 'memory:',
  };

  it('is not served without METRICS_TOKEN (404, one warning at start-up), and only to its bearer with one', async () => {
    const open = await startProcess(production);
    expect((await fetch(`${open.url}/metrics`)).status).toBe(404);
    expect(
      open
        .output()
        .split('\n')
        .filter((line) => line.includes('METRICS_TOKEN is unset in production')),
    ).toHaveLength(1);
    open.child.kill('SIGKILL');

    const guarded = await startProcess({ ...production, METRICS_TOKEN: 'metrics-token-0123456789' });
    expect((await fetch(`${guarded.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${guarded.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-0123456789' } })).status).toBe(200);
    expect(guarded.output()).not.toContain('METRICS_TOKEN is unset');
    guarded.child.kill('SIGKILL');
  });
});
