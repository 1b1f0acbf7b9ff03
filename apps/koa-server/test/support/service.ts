import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type Koa from 'koa';
import { startStubUpstream, type StubUpstreamServer } from '@cotizaciones/adapters/testing';
import type { StoredActivity } from '@cotizaciones/adapters';
import { compose, type Service } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { createLog, type Readiness } from '@cotizaciones/runtime';
import { metricsTokenHolders, probesAheadOfLine, type DetailAccess } from '../../src/http/probes.js';
import { createHttpServer, type HttpServer, type ServerLimits } from '../../src/http-server.js';

export const TOKEN = 'upstream-SECRET-token-1234567890';
export const SESSION_KEY = 'session-key-SECRET-0123456789abcdef';
export const FIELD_PATH = '/cotizaciones/api/update_cotizacion_api.php';
export const ITEM_PATH = '/cotizaciones/api/update_cot_item.php';

/** Collects the server log's JSON lines. */
export function captureLog() {
  const stream = new PassThrough();
  const lines: Array<Record<string, unknown>> = [];
  let raw = '';
  stream.on('data', (chunk: Buffer) => {
    raw += chunk.toString();
    let newline: number;
    while ((newline = raw.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(raw.slice(0, newline)) as Record<string, unknown>);
      raw = raw.slice(newline + 1);
    }
  });
  return { log: createLog('debug', stream), lines, text: () => lines.map((line) => JSON.stringify(line)).join('\n') };
}

/** The app on an ephemeral port, with the server set-up main.ts uses (limits, protocol answers; with `readiness`, the probes ahead of the line). */
export async function listen(
  app: Koa,
  limits: Partial<ServerLimits> = {},
  log = captureLog().log,
  readiness?: () => Readiness,
  detail?: DetailAccess,
): Promise<{ server: Server; http: HttpServer; url: string }> {
  const http = createHttpServer(
    app.callback(),
    { ...loadConfig({}).httpLimits, ...limits },
    log,
    readiness && probesAheadOfLine(readiness, detail),
  );
  const server = http.server;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, http, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export interface TestService {
  readonly url: string;
  readonly stub: StubUpstreamServer;
  readonly service: Service;
  readonly logs: ReturnType<typeof captureLog>;
  /** The SQLite file of the activity log. */
  readonly dbFile: string;
  /** The activity log's dead-letter file (in the same temp dir). */
  readonly deadLetterFile: string;
  /** The activity log's spool folder (in the same temp dir). */
  readonly spool: string;
  /** Signs in through /dev/login and returns the Cookie header for later requests. */
  signIn(id?: string): Promise<string>;
  post(path: string, body?: RequestInit['body'], init?: { cookie?: string; headers?: Record<string, string> }): Promise<Response>;
  /** Activity-log rows once every pending entry is written, oldest first. */
  rows(): Promise<StoredActivity[]>;
  close(): Promise<void>;
}

/** The real service (compose + Koa) on an ephemeral port, a stub upstream over HTTP, a SQLite log in a temp dir. */
export async function startService(env: Record<string, string> = {}): Promise<TestService> {
  const stub = await startStubUpstream();
  const dir = mkdtempSync(join(tmpdir(), 'koa-server-'));
  const dbFile = join(dir, 'activity.db');
  const deadLetterFile = join(dir, 'activity-dead-letter.jsonl');
  const spool = join(dir, 'activity-spool');
  const config = loadConfig({
    UPSTREAM_BASE_URL: stub.url,
    UPSTREAM_TOKEN: TOKEN,
    // Far from what a busy host's stub takes; a test about the upstream's deadline sets its own.
    UPSTREAM_TIMEOUT_MS: '10000',
    ACTIVITY_LOG_URL: `sqlite:${dbFile}`,
    ACTIVITY_LOG_DEAD_LETTER: deadLetterFile,
    ACTIVITY_LOG_SPOOL: spool,
    SESSION_KEYS: SESSION_KEY,
    DEV_LOGIN: '1',
    ...env,
  });
  const logs = captureLog();
  const service = await compose(config, logs.log);
  const { server, url } = await listen(service.app, config.httpLimits, logs.log, service.readiness, metricsTokenHolders(config.metrics));
  const base = `${url}${config.basePath}`;
  return {
    url,
    stub,
    service,
    logs,
    dbFile,
    deadLetterFile,
    spool,
    async signIn(id = '7') {
      const response = await fetch(`${base}/dev/login`, { method: 'POST', body: new URLSearchParams({ id, name: 'Ana' }) });
      return cookieHeader(response);
    },
    post(path, body, init = {}) {
      return fetch(`${base}${path}`, {
        method: 'POST',
        ...(body === undefined ? {} : { body }),
        headers: { ...(init.cookie ? { cookie: init.cookie } : {}), ...init.headers },
      });
    },
    async rows() {
      await service.activityLog.flush();
      return (await service.activityStore.recent(1000)).reverse();
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await service.close(1000);
      await stub.close();
    },
  };
}

/** The cookies a response sets, as a Cookie request header. */
export function cookieHeader(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .join('; ');
}

export const form = (pairs: Record<string, string> | Array<[string, string]>) => new URLSearchParams(pairs);
export const urlencoded = (body: string) => ({ body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });

/** A `name=value; name.sig=…` Cookie header signed as koa-session (keygrip, HMAC-SHA1) signs it. */
export function signedCookie(name: string, value: string, key: string): string {
  const sig = createHmac('sha1', key).update(`${name}=${value}`).digest('base64url');
  return `${name}=${value}; ${name}.sig=${sig}`;
}

/**
 * A POST through node:http, for headers fetch will not send as given (`Origin`), from the loopback
 * address `from` when given (the peer address the service sees). Answers a fetch-like Response so the
 * same assertions apply.
 */
export function rawPost(url: string, body: string | Buffer, headers: Record<string, string>, from?: string): Promise<Response> {
  return new Promise((resolve, reject) => {
    const options = {
      method: 'POST',
      ...(from ? { localAddress: from } : {}),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body), ...headers },
    };
    const req = httpRequest(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          for (const one of Array.isArray(value) ? value : [value ?? '']) responseHeaders.append(name, one);
        }
        resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0, headers: responseHeaders }));
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
