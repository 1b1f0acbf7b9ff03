import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sign } from '@fastify/cookie';
import { assertBuilt } from '@cotizaciones/adapters/build';
import { openSqliteReadOnly, type SqliteDatabase } from '@cotizaciones/adapters/testing';
import pg from 'pg';
import { spawnServer, type Spawned } from './processes.js';
import { devLoginCookie, signedSessionCookie } from './sessions.js';
import { scratchDir } from './scratch-dir.js';

export const SESSION_KEY = 'bench-session-key-0123456789abcdef';
export const SERVICE_MAIN = fileURLToPath(new URL('../../koa-server/dist/main.js', import.meta.url));
/** The packages the service's dist/main.js is built from. */
const SERVICE_PACKAGES = ['../../koa-server', '../../../packages/runtime', '../../../packages/adapters', '../../../packages/core'];

/** Measuring a build of other sources would report on code that is no longer there: refuse. */
function assertServiceBuilt(): void {
  assertBuilt(
    SERVICE_PACKAGES.map((dir) => fileURLToPath(new URL(dir, import.meta.url))),
    "the service's build",
  );
}
const BASELINE = fileURLToPath(new URL('./baseline-forwarder.js', import.meta.url));
const FASTIFY = fileURLToPath(new URL('./fastify-reference.js', import.meta.url));
const KOA = fileURLToPath(new URL('./koa-reference.js', import.meta.url));
const KOA_ALONE = fileURLToPath(new URL('./koa-alone.js', import.meta.url));
const OTLP_SINK = fileURLToPath(new URL('./otlp-sink.js', import.meta.url));

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
  /** The reference is Fastify (the "× Fastify" column); the Koa floor is the same handler on Koa. */
  readonly role: 'baseline' | 'reference' | 'koa-alone' | 'koa-floor' | 'koa-got' | 'service';
  /** How a service target runs (its client, stores, tracing): the report picks its comparisons by it. */
  readonly setting?: ServiceSetting;
  start(upstreamUrl: string, users: number): Promise<RunningTarget>;
}

/** A reference server (one script, its batched in-memory log behind `/__rows`) fed the given cookies. */
function referenceTarget(
  name: string,
  role: Target['role'],
  script: string,
  cookies: (users: number) => string[],
  nodeArgs: readonly string[],
  args: string[] = [],
): Target {
  return {
    name,
    role,
    async start(upstreamUrl, users) {
      const process = await spawnServer(
        script,
        args,
        { UPSTREAM_BASE_URL: upstreamUrl, SESSION_KEYS: SESSION_KEY, UPSTREAM_TOKEN: 'bench-token' },
        nodeArgs,
      );
      const signed = cookies(users);
      return {
        process,
        cookies: () => Promise.resolve(signed),
        rows: async () => Number(await (await fetch(`${process.url}/__rows`)).text()),
        stop: async () => {
          await process.stop();
        },
      };
    },
  };
}

/** Fastify's own cookie signing (HMAC-SHA256, `value.sig`). */
function fastifyCookies(users: number): string[] {
  const now = Date.now();
  return Array.from({ length: users }, (_, i) => {
    const value = Buffer.from(JSON.stringify({ user: { id: String(i + 1) }, expiresAt: now + 8 * 3_600_000, seenAt: now })).toString(
      'base64url',
    );
    return `cotizaciones.sid=${sign(value, SESSION_KEY)}`;
  });
}

/**
 * The references, run with the service's V8 flags: a heap setting trades CPU for memory in any Node
 * process, so each reference's CPU and memory are compared with the service's at the same setting.
 */
export function referenceTargets(nodeArgs: readonly string[]): Target[] {
  return [
    referenceTarget('baseline: node:http + undici', 'baseline', BASELINE, signedCookies, nodeArgs),
    // What a Node team would write instead.
    referenceTarget('reference: Fastify 5 + pino + undici', 'reference', FASTIFY, fastifyCookies, nodeArgs),
    // Koa and its router alone (no session, body parser or log): what Koa itself costs.
    referenceTarget('Koa alone: Koa 3 + @koa/router + undici, no session', 'koa-alone', KOA_ALONE, signedCookies, nodeArgs),
    // The Fastify reference's handler on the project's own libraries (Koa, koa-session as the service uses it, koa-body): their floor.
    referenceTarget(
      "Koa floor: Koa 3 + koa-session (the service's signer) + koa-body + pino + undici",
      'koa-floor',
      KOA,
      signedCookies,
      nodeArgs,
    ),
    // The Koa floor with got for undici: the least a Koa service on got costs, the service's got row's reference.
    referenceTarget('Koa + got: the Koa floor with got', 'koa-got', KOA, signedCookies, nodeArgs, ['got']),
  ];
}

export interface ServiceSetting {
  readonly client: 'got' | 'undici';
  /** Cookie sessions + SQLite, or Redis sessions + PostgreSQL. */
  readonly stores: { kind: 'cookie+sqlite' } | { kind: 'redis+postgres'; redisUrl: string; postgresUrl: string };
  /** Node/V8 flags on the service's command line (e.g. heap sizing), as a start command would pass them. */
  readonly nodeArgs?: readonly string[];
  /** Another build of the service (its dist/main.js), measured beside this one: an A/B of a change. */
  readonly main?: string;
  /** Named "candidate" in the report: the B of an A/B. */
  readonly candidate?: boolean;
  /** Tracing on, every request sampled, exported over OTLP/HTTP (protobuf) to a collector that takes everything. */
  readonly traced?: boolean;
  /** `ACTIVITY_LOG_SPOOL_MAX_BYTES=0`: no entry spooled, each held in memory only: what the spool costs, by difference. */
  readonly spoolOff?: boolean;
}

export function serviceTarget(setting: ServiceSetting): Target {
  return {
    name: `${setting.candidate ? 'candidate' : 'service'}: ${setting.client}, ${setting.stores.kind}${setting.traced ? ', traced (100 %)' : ''}${setting.spoolOff ? ', spool off (ACTIVITY_LOG_SPOOL_MAX_BYTES=0)' : ''}${setting.nodeArgs?.length ? ` [${setting.nodeArgs.join(' ')}]` : ''}`,
    role: 'service',
    setting,
    async start(upstreamUrl, users) {
      const table = `activity_log_bench_${randomBytes(4).toString('hex')}`;
      const stores =
        setting.stores.kind === 'cookie+sqlite'
          ? { ACTIVITY_LOG_URL: `sqlite:${join(scratchDir('service-'), 'activity.db')}` }
          : {
              ACTIVITY_LOG_URL: setting.stores.postgresUrl,
              ACTIVITY_LOG_TABLE: table,
              SESSION_STORE: 'redis',
              REDIS_URL: setting.stores.redisUrl,
              REDIS_KEY_PREFIX: `bench:${table}:`,
            };
      const collector = setting.traced ? await spawnServer(OTLP_SINK, [], {}) : undefined;
      const env = {
        ...(collector ? { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_TRACES_SAMPLER: 'always_on' } : {}),
        UPSTREAM_BASE_URL: upstreamUrl,
        UPSTREAM_TOKEN: 'bench-token',
        UPSTREAM_CLIENT: setting.client,
        SESSION_KEYS: SESSION_KEY,
        DEV_LOGIN: '1',
        PORT: '0',
        ...(setting.spoolOff ? { ACTIVITY_LOG_SPOOL_MAX_BYTES: '0' } : {}),
        ...stores,
      };
      if (setting.main === undefined) assertServiceBuilt();
      const process = await spawnServer(setting.main ?? SERVICE_MAIN, [], env, setting.nodeArgs);
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
          await collector?.stop();
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
    let db: SqliteDatabase | undefined;
    return {
      count() {
        const file = url.slice('sqlite:'.length);
        // The service opens its log on first use: before that there are no rows, and no file.
        if (!db && !existsSync(file)) return Promise.resolve(0);
        db ??= openSqliteReadOnly(file);
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
