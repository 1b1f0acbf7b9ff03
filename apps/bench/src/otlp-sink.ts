// A trace collector for the benchmark, in its own process: takes every OTLP/HTTP export and answers 200.
import { createServer } from 'node:http';
import { announceListening } from './announce-listening.js';

let exports = 0;
let bytes = 0;
const server = createServer((req, res) => {
  if (req.url === '/__received') {
    res.end(JSON.stringify({ exports, bytes }));
    return;
  }
  req.on('data', (chunk: Buffer) => (bytes += chunk.length));
  req.on('end', () => {
    exports += 1;
    res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/x-protobuf' }).end();
  });
});
server.keepAliveTimeout = 65_000;
announceListening(server);
