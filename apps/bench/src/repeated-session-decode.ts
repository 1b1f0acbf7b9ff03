import { readFileSync } from 'node:fs';
import { decodePhpSession } from '@cotizaciones/adapters/php-session';
import { median } from './measure.js';

/**
 * Run as a child (`node --expose-gc repeated-session-decode.js FILE READS`) by repeated-session-bench.ts,
 * so that a decoder that blows up costs this process only, and its memory is measured from a clean
 * start: decodes the igbinary session in FILE as a request does (the user and activity keys built)
 * READS times more and prints, as JSON, the first decode's ms, the median ms of the others, the heap
 * and RSS the first one grew (what one request costs), and the RSS growth over all of them.
 */
const [file, readsArg] = process.argv.slice(2);
const bytes = readFileSync(file!);
const reads = Number(readsArg);
const used = new Set(['user', 'LAST_ACTIVITY']);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

gc();
const rssBefore = process.memoryUsage().rss;
const heapBefore = process.memoryUsage().heapUsed;
let started = performance.now();
let kept: unknown = decodePhpSession(bytes, 'igbinary', undefined, used);
const firstMs = performance.now() - started;
const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
const rssFirst = process.memoryUsage().rss;
let rssPeak = rssFirst;
const times: number[] = [];
for (let i = 0; i < reads; i += 1) {
  started = performance.now();
  kept = decodePhpSession(bytes, 'igbinary', undefined, used);
  times.push(performance.now() - started);
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
}
if (!(kept as { vars: Map<string, unknown> }).vars.has('user')) throw new Error('no user decoded');
process.stdout.write(
  JSON.stringify({
    firstMs,
    medianMs: median(times),
    heapMb: heapGrowth / 2 ** 20,
    rssGrowthMb: (rssFirst - rssBefore) / 2 ** 20,
    rssAllMb: (rssPeak - rssBefore) / 2 ** 20,
  }),
);
