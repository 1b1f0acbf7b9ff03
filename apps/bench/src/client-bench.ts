// pnpm bench:clients: the upstream clients alone, 64 requests in flight against the stub upstream,
// to show what the HTTP client costs and what each got setting buys.
import { Agent, request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import got from 'got';
import { UPDATE_QUOTATION_FIELD, type UpstreamRequest } from '@cotizaciones/core';
import { gotUpstream } from '@cotizaciones/adapters/got';
import { undiciUpstream } from '@cotizaciones/adapters/undici';
import { spawnServer } from './processes.js';

type Call = () => Promise<unknown>;
const request: UpstreamRequest = {
  path: UPDATE_QUOTATION_FIELD.upstreamPath,
  payload: { id: '12', field: 'estado', value: 'x' },
  token: 't',
  idempotencyKey: 'bench-1',
};
const jsonHeaders = { 'content-type': 'application/json', accept: 'application/json' };

const variants: Record<string, (url: string) => Call> = {
  'undici adapter (as shipped)': (url) => {
    const upstream = undiciUpstream({ baseUrl: url, timeoutMs: 10_000 });
    return () => upstream.post(request);
  },
  'node:http + keep-alive agent': (url) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 256 });
    const { hostname, port } = new URL(url);
    return () =>
      new Promise((resolve, reject) => {
        const body = JSON.stringify(request.payload);
        const req = httpRequest(
          {
            host: hostname,
            port,
            path: request.path,
            method: 'POST',
            agent,
            timeout: 10_000,
            headers: { ...jsonHeaders, 'content-length': Buffer.byteLength(body), authorization: 'Bearer t' },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString()) as unknown));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
  },
  'got adapter (as shipped: extend once, own agent, request timeout)': (url) => {
    const upstream = gotUpstream({ baseUrl: url, timeoutMs: 10_000 });
    return () => upstream.post(request);
  },
  'got, no timeout': (url) => {
    const client = got.extend({
      method: 'POST',
      agent: { http: new Agent({ keepAlive: true, maxSockets: 256 }) },
      retry: { limit: 0 },
      throwHttpErrors: false,
      followRedirect: false,
      responseType: 'text',
      headers: jsonHeaders,
    });
    return async () =>
      JSON.parse(
        (await client(`${url}${request.path}`, { body: JSON.stringify(request.payload), headers: { authorization: 'Bearer t' } })).body,
      ) as unknown;
  },
  'got, decompress off + AbortSignal timeout': (url) => {
    const client = got.extend({
      method: 'POST',
      agent: { http: new Agent({ keepAlive: true, maxSockets: 256 }) },
      retry: { limit: 0 },
      throwHttpErrors: false,
      followRedirect: false,
      decompress: false,
      responseType: 'text',
      headers: jsonHeaders,
    });
    return async () =>
      JSON.parse(
        (
          await client(`${url}${request.path}`, {
            body: JSON.stringify(request.payload),
            headers: { authorization: 'Bearer t' },
            signal: AbortSignal.timeout(10_000),
          })
        ).body,
      ) as unknown;
  },
  'got, agent maxSockets 64': (url) => {
    const client = got.extend({
      method: 'POST',
      agent: { http: new Agent({ keepAlive: true, maxSockets: 64 }) },
      timeout: { request: 10_000 },
      retry: { limit: 0 },
      throwHttpErrors: false,
      followRedirect: false,
      responseType: 'text',
      headers: jsonHeaders,
    });
    return async () =>
      JSON.parse(
        (await client(`${url}${request.path}`, { body: JSON.stringify(request.payload), headers: { authorization: 'Bearer t' } })).body,
      ) as unknown;
  },
  'got stream API': (url) => {
    const client = got.extend({
      method: 'POST',
      agent: { http: new Agent({ keepAlive: true, maxSockets: 256 }) },
      timeout: { request: 10_000 },
      retry: { limit: 0 },
      throwHttpErrors: false,
      followRedirect: false,
      headers: jsonHeaders,
    });
    return () =>
      new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        const stream = client.stream(`${url}${request.path}`, {
          body: JSON.stringify(request.payload),
          headers: { authorization: 'Bearer t' },
        });
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString()) as unknown));
        stream.on('error', reject);
      });
  },
};

async function drive(call: Call, ms: number, inFlight: number): Promise<number> {
  let done = 0;
  const end = Date.now() + ms;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (Date.now() < end) {
        await call();
        done += 1;
      }
    }),
  );
  return done;
}

const stub = await spawnServer(fileURLToPath(new URL('./stub-upstream.js', import.meta.url)), ['0'], {});
process.stdout.write('| client | req/s | CPU ms / 1000 req |\n|---|---|---|\n');
for (const [name, make] of Object.entries(variants)) {
  const call = make(stub.url);
  await drive(call, 1_500, 64);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const done = await drive(call, 4_000, 64);
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`| ${name} | ${(done / seconds).toFixed(0)} | ${(((used.user + used.system) / 1000 / done) * 1000).toFixed(0)} |\n`);
}
await stub.stop();
process.exit(0);
