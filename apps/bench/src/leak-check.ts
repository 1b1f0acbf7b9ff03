// npm run bench:leaks: 100 000 requests mixing successes, upstream failures and refused input against the
// service; resident memory and open file descriptors before and after should stay flat.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { UPDATE_QUOTATION_FIELD, UPDATE_QUOTATION_ITEM } from '@cotizaciones/core';
import { memoryMb, spawnServer } from './processes.js';
import { serviceTarget } from './targets.js';

const { values } = parseArgs({
  options: { requests: { type: 'string', default: '100000' }, connections: { type: 'string', default: '64' } },
});
const total = Number(values.requests);
const connections = Number(values.connections);
const FIELD = UPDATE_QUOTATION_FIELD.webPath;
const ITEM = UPDATE_QUOTATION_ITEM.webPath;
const form = { 'content-type': 'application/x-www-form-urlencoded' };

const stub = await spawnServer(fileURLToPath(new URL('./stub-upstream.js', import.meta.url)), ['0'], {});
const target = await serviceTarget({ client: 'got', stores: { kind: 'cookie+sqlite' } }).start(stub.url, 64);
const pid = target.process.pid;
const fds = () => readdirSync(`/proc/${pid}/fd`).length;
const cookies = await target.cookies();
let next = 0;
const counts = new Map<string, number>();

// Each connection cycles through: 4 successes, an upstream 500, an upstream refusal, a delete,
// and three refused inputs (no session, an array parameter, a cross-site origin).
const withCookie = (request: autocannon.Request, context: { cookie?: string | undefined }) => {
  context.cookie ??= cookies[next++ % cookies.length];
  return { ...request, headers: { ...request.headers, cookie: context.cookie ?? '' } };
};
const onResponse = (_status: number, body: string) => counts.set(body, (counts.get(body) ?? 0) + 1);
const requests: autocannon.Request[] = [
  ...Array.from({ length: 4 }, () => ({
    method: 'POST' as const,
    path: FIELD,
    headers: form,
    body: 'id=12&field=estado&value=ok',
    setupRequest: withCookie,
    onResponse,
  })),
  { method: 'POST', path: FIELD, headers: form, body: 'id=fail&field=estado', setupRequest: withCookie, onResponse },
  { method: 'POST', path: FIELD, headers: form, body: 'id=refuse&field=estado', setupRequest: withCookie, onResponse },
  { method: 'POST', path: ITEM, headers: form, body: 'id=31&delete', setupRequest: withCookie, onResponse },
  { method: 'POST', path: FIELD, headers: form, body: 'id=12', onResponse },
  { method: 'POST', path: FIELD, headers: form, body: 'id[]=12', setupRequest: withCookie, onResponse },
  {
    method: 'POST',
    path: ITEM,
    headers: { ...form, origin: 'https://evil.example' },
    body: 'id=31&delete',
    setupRequest: withCookie,
    onResponse,
  },
];

const sample = (label: string) => {
  const memory = memoryMb(pid);
  const line = { label, rssMb: Number(memory.rss.toFixed(1)), openFds: fds() };
  process.stdout.write(`${JSON.stringify(line)}\n`);
  return line;
};

// Warm-up, then the measured run.
await autocannon({ url: target.process.url, connections, amount: 5_000, requests });
await new Promise((resolve) => setTimeout(resolve, 2_000));
const before = sample('after 5 000 warm-up requests');
const started = Date.now();
// In four legs, sampling after each: a leak shows as growth that keeps going, noise does not.
const legs = [];
for (let leg = 1; leg <= 4; leg += 1) {
  legs.push(await autocannon({ url: target.process.url, connections, amount: Math.round(total / 4), requests }));
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  sample(`after ${(leg * total) / 4} requests`);
}
// Idle keep-alive sockets (to the upstream, 4 s idle timeout) close before the last sample.
await new Promise((resolve) => setTimeout(resolve, 6_000));
const after = sample('6 s idle');
process.stdout.write(
  `${JSON.stringify(
    {
      requests: legs.reduce((sum, r) => sum + r.requests.total, 0),
      seconds: (Date.now() - started) / 1000,
      errors: legs.reduce((sum, r) => sum + r.errors, 0),
      timeouts: legs.reduce((sum, r) => sum + r.timeouts, 0),
      non2xx: legs.reduce((sum, r) => sum + r.non2xx, 0),
      rssGrowthMb: Number((after.rssMb - before.rssMb).toFixed(1)),
      fdGrowth: after.openFds - before.openFds,
      answers: Object.fromEntries(counts),
    },
    null,
    2,
  )}\n`,
);
await target.stop();
await stub.stop();
