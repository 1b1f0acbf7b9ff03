import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { spawnServer, type Spawned } from './processes.js';
import { devLoginCookie, signedSessionCookie } from './sessions.js';

export const SESSION_KEY = 'bench-session-key-0123456789abcdef';
const SERVICE_MAIN = fileURLToPath(new URL('../../koa-server/dist/main.js', import.meta.url));
const BASELINE = fileURLToPath(new URL('./baseline-forwarder.js', import.meta.url));

export interface RunningTarget {
  readonly process: Spawned;
  /** One signed-in session per simulated user, recently active (as a browser keeps its cookies current). */
  cookies(): Promise<readonly string[]>;
  /** Activity-log rows written so far. */
  rows(): Promise<number>;
  stop(): Promise<void>;
}

export interface Target {
  readonly name: string;
  readonly isBaseline: boolean;
  start(upstreamUrl: string, users: number): Promise<RunningTarget>;
}

export const baselineTarget: Target = {
  name: 'baseline: node:http + undici',
  isBaseline: true,
  async start(upstreamUrl, users) {
    const process = await spawnServer(BASELINE, [], { UPSTREAM_BASE_URL: upstreamUrl, SESSION_KEYS: SESSION_KEY });
    return {
      process,
      cookies: () => Promise.resolve(signedCookies(users)),
      rows: async () => Number(await (await fetch(`${process.url}/__rows`)).text()),
      stop: async () => {
        await process.stop();
      },
    };
  },
};

export interface ServiceSetting {
  readonly client: 'got' | 'undici';
  /** Cookie sessions + SQLite, or Redis sessions + PostgreSQL. */
  readonly stores: { kind: 'cookie+sqlite' } | { kind: 'redis+postgres'; redisUrl: string; postgresUrl: string };
}

export function serviceTarget(setting: ServiceSetting): Target {
  return {
    name: `service: ${setting.client}, ${setting.stores.kind}`,
    isBaseline: false,
    async start(upstreamUrl, users) {
      const table = `activity_log_bench_${randomBytes(4).toString('hex')}`;
      const stores =
        setting.stores.kind === 'cookie+sqlite'
          ? { ACTIVITY_LOG_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'bench-')), 'activity.db')}` }
          : {
              ACTIVITY_LOG_URL: setting.stores.postgresUrl,
              ACTIVITY_LOG_TABLE: table,
              SESSION_STORE: 'redis',
              REDIS_URL: setting.stores.redisUrl,
              REDIS_KEY_PREFIX: `bench:${table}:`,
            };
      const env = {
        UPSTREAM_BASE_URL: upstreamUrl,
        UPSTREAM_TOKEN: 'bench-token',
        UPSTREAM_CLIENT: setting.client,
        SESSION_KEYS: SESSION_KEY,
        DEV_LOGIN: '1',
        PORT: '0',
        ...stores,
      };
      const process = await spawnServer(SERVICE_MAIN, [], env);
      // Cookie sessions are signed here like the baseline's; Redis sessions need a real sign-in (their activity is kept server-side).
      const redisCookies: string[] = [];
      if (setting.stores.kind === 'redis+postgres') {
        for (let i = 1; i <= users; i += 1) redisCookies.push(await devLoginCookie(process.url, String(i)));
      }
      const counter = rowCounter(env.ACTIVITY_LOG_URL, setting.stores.kind === 'cookie+sqlite' ? 'activity_log' : table);
      return {
        process,
        cookies: () => Promise.resolve(redisCookies.length > 0 ? redisCookies : signedCookies(users)),
        rows: () => counter.count(),
        stop: async () => {
          await process.stop();
          await counter.close();
        },
      };
    },
  };
}

function signedCookies(users: number): string[] {
  return Array.from({ length: users }, (_, i) => signedSessionCookie(String(i + 1), SESSION_KEY));
}

function rowCounter(url: string, table: string): { count(): Promise<number>; close(): Promise<void> } {
  if (url.startsWith('sqlite:')) {
    let db: SQLite.Database | undefined;
    return {
      count() {
        db ??= new SQLite(url.slice('sqlite:'.length), { readonly: true, fileMustExist: true });
        return Promise.resolve((db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n);
      },
      close: () => {
        db?.close();
        return Promise.resolve();
      },
    };
  }
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  return {
    count: async () => Number((await pool.query<{ n: string }>(`SELECT COUNT(*) AS n FROM ${table}`)).rows[0]?.n ?? 0),
    close: async () => {
      await pool.query(`DROP TABLE IF EXISTS ${table}`);
      await pool.end();
    },
  };
}
