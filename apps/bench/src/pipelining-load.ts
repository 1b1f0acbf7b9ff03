// Load for the fair-share measurement, in its own process: `node pipelining-load.js URL CONNECTIONS DEPTH PATH [COOKIE]`.
// Each connection writes DEPTH requests at once and writes the next DEPTH when all are answered (DEPTH 1: an
// ordinary keep-alive client), until the process is stopped. Prints one line, {"ready":true}, once every
// connection has been answered once.
import { connect, type Socket } from 'node:net';

const [url = '', connectionsText = '1', depthText = '1', path = '/healthz', cookie = ''] = process.argv.slice(2);
const { hostname, port } = new URL(url);
const depth = Number(depthText);
const body = 'id=12&field=estado&value=aprobada';
const request =
  path === '/healthz'
    ? `GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`
    : `POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nCookie: ${cookie}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
const batch = request.repeat(depth);
let answeredOnce = 0;

function run(socket: Socket): void {
  let pending = depth;
  let first = true;
  let tail = '';
  socket.setNoDelay(true);
  socket.on('data', (chunk: Buffer) => {
    // Answers are counted by their status lines; a line split across chunks is kept for the next one.
    const text = tail + chunk.toString('latin1');
    pending -= text.split('HTTP/1.1 ').length - 1;
    tail = text.slice(-8);
    if (pending > 0) return;
    if (first && ++answeredOnce === Number(connectionsText)) process.stdout.write('{"ready":true}\n');
    first = false;
    pending = depth;
    socket.write(batch);
  });
  socket.on('error', () => undefined);
  socket.write(batch);
}

for (let i = 0; i < Number(connectionsText); i += 1) run(connect(Number(port), hostname));
process.on('SIGTERM', () => process.exit(0));
