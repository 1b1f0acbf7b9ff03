// The bulk CLI's reference: its upstream client alone, as a minimal program calls it, sending the
// CLI's calls in the CLI's shape: `calls` POSTs, `concurrency` in flight, then exit (the CPU report
// is preloaded). Usage: client-alone.js got|undici URL CALLS CONCURRENCY
import { UPDATE_QUOTATION_FIELD } from '@cotizaciones/core';
import { referencePost } from './reference-clients.js';

const [client, url = '', callsArg = '1', concurrencyArg = '16'] = process.argv.slice(2);
const calls = Number(callsArg);
const post = referencePost(client, url);
const headers = { 'content-type': 'application/json', accept: 'application/json', authorization: 'Bearer bench-token' };

let next = 0;
const worker = async () => {
  while (next < calls) {
    next += 1;
    const body = JSON.stringify({ id: String(next), field: 'estado', value: 'aprobada' });
    const answer = await post(UPDATE_QUOTATION_FIELD.upstreamPath, { ...headers, 'idempotency-key': `run:${next}` }, body);
    if ((answer as { ok?: unknown }).ok !== true) throw new Error(`call ${next}: ${JSON.stringify(answer)}`);
  }
};
await Promise.all(Array.from({ length: Math.min(Number(concurrencyArg), calls) }, worker));
process.exit(0);
