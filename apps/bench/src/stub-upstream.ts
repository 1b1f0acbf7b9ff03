// The upstream for the benchmark, in its own process: answers {"ok":true} after --delay ms and counts calls.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const delayMs = Number(process.argv[2] ?? '0');
let calls = 0;
const OK = '{"ok":true}';

const server = createServer((req, res) => {
  if (req.url === '/__calls') {
    res.end(String(calls));
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    calls += 1;
    // Ids "fail" and "refuse" exercise the failure paths (leak check); everything else succeeds.
    const id = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString()) as { id?: unknown }).id : undefined;
    const answer = () => {
      if (id === 'fail') res.writeHead(500, { 'content-type': 'text/html' }).end('<h1>Internal Server Error</h1>');
      else if (id === 'refuse')
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":false,"error":{"message":"No se puede."}}');
      else res.writeHead(200, { 'content-type': 'application/json', 'content-length': OK.length }).end(OK);
    };
    if (delayMs > 0) setTimeout(answer, delayMs);
    else answer();
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
