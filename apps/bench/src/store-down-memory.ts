// apps/bench: npm run bench:store-down (after npm run build): the service's resident memory under a load of ~8 KB activity entries with
// its database up, then down (a port nothing listens on), the queue bounded at 1 000 entries: past the
// bound entries go to the dead-letter file, and memory must stay within the bounds either way, also
// once the load stops.
import { once } from 'node:events';
import { statSync } from 'node:fs';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { UPDATE_QUOTATION_FIELD } from '@cotizaciones/core';
import { memoryMb, spawnServer } from './processes.js';
import { scratchDir } from './scratch-dir.js';
import { signedSessionCookie } from './sessions.js';
import { SERVICE_MAIN, SESSION_KEY } from './targets.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    connections: { type: 'string', default: '64' },
    postgres: { type: 'string', default: process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    // Another build's dist/main.js: the same row for the build before a change.
    main: { type: 'string', default: SERVICE_MAIN },
  },
});
const seconds = Number(values.seconds);
const IDLE_S = 10;
// The field's name is what the entry records: ~8 KB of it.
const body = `id=12&field=estado${'x'.repeat(8_000)}&value=ok`;

/** A port nothing listens on: the database down from the start. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

const stub = await spawnServer(fileURLToPath(new URL('./stub-upstream.js', import.meta.url)), ['0'], {});
const cookies = Array.from({ length: 64 }, (_, i) => signedSessionCookie(String(i + 1), SESSION_KEY));
const table = `activity_log_memory_${randomBytes(4).toString('hex')}`;
const down = `postgres://postgres@127.0.0.1:${await closedPort()}/test`;

for (const [database, url] of [
  ['up', values.postgres],
  ['down', down],
] as const) {
  const deadLetter = join(scratchDir('store-down-'), 'dead-letter.jsonl');
  const server = await spawnServer(values.main, [], {
    UPSTREAM_BASE_URL: stub.url,
    UPSTREAM_TOKEN: 'bench-token',
    SESSION_KEYS: SESSION_KEY,
    PORT: '0',
    ACTIVITY_LOG_URL: url,
    ACTIVITY_LOG_TABLE: table,
    ACTIVITY_LOG_QUEUE_MAX: '1000',
    ACTIVITY_LOG_DEAD_LETTER: deadLetter,
  });
  let next = 0;
  const result = await autocannon({
    url: server.url,
    connections: Number(values.connections),
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: UPDATE_QUOTATION_FIELD.webPath,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
        setupRequest: (request) => ({ ...request, headers: { ...request.headers, cookie: cookies[next++ % cookies.length] ?? '' } }),
      },
    ],
  });
  const atEnd = memoryMb(server.pid);
  await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000));
  const idle = memoryMb(server.pid);
  let deadLetterMb = 0;
  try {
    deadLetterMb = statSync(deadLetter).size / 1024 / 1024;
  } catch {
    // None set aside.
  }
  process.stdout.write(
    `${JSON.stringify({
      database,
      requests: result.requests.total,
      reqPerS: Math.round(result.requests.average),
      non2xx: result.non2xx,
      rssAtLoadEndMb: Number(atEnd.rss.toFixed(1)),
      [`rss${IDLE_S}sAfterMb`]: Number(idle.rss.toFixed(1)),
      peakRssMb: Number(idle.peak.toFixed(1)),
      deadLetterMb: Number(deadLetterMb.toFixed(1)),
    })}\n`,
  );
  await server.stop();
}
const client = new pg.Client({ connectionString: values.postgres });
await client.connect();
await client.query(`DROP TABLE IF EXISTS ${table}`);
await client.end();
await stub.stop();
