import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodePhpSession, phpSessions, type PhpSessionFormat, type PhpSessionsOptions } from '@cotizaciones/adapters/php-session';
import type { PhpServer } from '@cotizaciones/adapters/testing/processes';
import { median } from './measure.js';
import { signIn, type PhpPeers } from './php-session-peers.js';

export interface DecoderRow {
  /** `session.serialize_handler` of the session. */
  readonly format: PhpSessionFormat;
  readonly bytes: number;
  /** CPU µs of one `session_decode` in PHP itself (median of 7 samples). */
  readonly phpUs: number;
  /** CPU µs of the service's read of the same bytes (the user and activity keys built, the rest checked). */
  readonly serviceUs: number;
}

const CART_SESSION = fileURLToPath(new URL('../php/cart-session.php', import.meta.url));
const SAMPLES = 7;

/**
 * The reader against PHP's own session_decode, on shop-cart sessions a real PHP encodes into
 * `scratch` (`cart-<format>-<size>.bin`: the large-session measurement reuses one).
 */
export async function decoderCosts(scratch: string): Promise<DecoderRow[]> {
  const decoder: DecoderRow[] = [];
  for (const format of ['php', 'igbinary'] as const) {
    for (const size of [52_000, 205_000, 820_000]) {
      const file = join(scratch, `cart-${format}-${size}.bin`);
      execFileSync('php', [CART_SESSION, String(size), file, format]);
      const phpUs = Number(execFileSync('php', [CART_SESSION, '--decode', file, String(SAMPLES), format], { encoding: 'utf8' }).trim());
      const bytes = await readFile(file);
      decoder.push({ format, bytes: bytes.length, phpUs, serviceUs: readerCpuUs(bytes, format) });
    }
  }
  return decoder;
}

/** CPU µs of one read of `bytes` by the adapter's reader, as PHP's is measured: median of samples of many reads. */
function readerCpuUs(bytes: Uint8Array, format: PhpSessionFormat): number {
  const used = new Set(['user', 'LAST_ACTIVITY']);
  const read = () => decodePhpSession(bytes, format, { maxBytes: 4 * 1024 * 1024 }, used);
  const perSample = Math.max(1, Math.floor(20_000_000 / bytes.length));
  for (let i = 0; i < perSample; i += 1) read();
  const samples: number[] = [];
  for (let sample = 0; sample < SAMPLES; sample += 1) {
    const started = process.cpuUsage();
    for (let i = 0; i < perSample; i += 1) read();
    const spent = process.cpuUsage(started);
    samples.push((spent.user + spent.system) / perSample);
  }
  return median(samples);
}

type Touch = NonNullable<PhpSessionsOptions['touch']>;
const EVERY_TOUCH: readonly Touch[] = ['none', 'expiry', 'activity'];

/** `reads` adapter reads of a session each PHP app wrote, timed one by one, by `<handler>, touch <mode>`. */
export async function adapterReadTimes(peers: PhpPeers, reads: number): Promise<Map<string, number[]>> {
  const stores: Array<{ name: string; php: PhpServer; where: PhpSessionsOptions; touches: readonly Touch[] }> = [
    // The adapter refuses touch=activity with files (PHP rewrites the file under its own lock).
    { name: 'files', php: peers.phpFiles, where: { saveHandler: 'files', savePath: peers.dir }, touches: ['none', 'expiry'] },
    { name: 'redis', php: peers.phpRedis, where: { saveHandler: 'redis', savePath: peers.savePath }, touches: EVERY_TOUCH },
    ...(peers.cluster
      ? [
          {
            name: 'rediscluster',
            php: peers.cluster.php,
            where: { saveHandler: 'rediscluster', savePath: peers.cluster.savePath },
            touches: EVERY_TOUCH,
          } as const,
        ]
      : []),
    ...(peers.memcached
      ? [
          {
            name: 'memcached',
            php: peers.memcached.php,
            where: { saveHandler: 'memcached', savePath: peers.memcached.address },
            touches: EVERY_TOUCH,
          } as const,
        ]
      : []),
    ...peers.pdo.map(({ name, table, php }) => ({
      name: name.slice('php '.length),
      php,
      where: { saveHandler: 'pdo', savePath: table.savePath, pdoTable: table.table } as const,
      touches: EVERY_TOUCH,
    })),
  ];
  const control = { activityKey: 'LAST_ACTIVITY', idleSeconds: 1800 };
  const readTimes = new Map<string, number[]>();
  for (const store of stores) {
    const cookie = await signIn(store.php, '61');
    for (const touch of store.touches) {
      const times: number[] = [];
      readTimes.set(`${store.name}, touch ${touch}`, times);
      await timeReads({ ...store.where, touch, ...control }, cookie, reads, times);
    }
  }
  return readTimes;
}

/** `reads` reads of one PHP-written session through the adapter, timed one by one. */
async function timeReads(options: PhpSessionsOptions, cookie: string, reads: number, into: number[]): Promise<void> {
  const sessions = phpSessions(options);
  await sessions.ready(2_000);
  try {
    for (let i = 0; i < reads; i += 1) {
      const started = performance.now();
      const user = await sessions.sessionFor(cookie).currentUser();
      into.push(performance.now() - started);
      if (user?.id !== '61') throw new Error(`read ${i} found ${user?.id ?? 'no user'}`);
    }
  } finally {
    await sessions.close();
  }
}
