// CPU per parse of multipart bodies: the service's own parser against @fastify/busboy configured with
// PHP's file rule (decision 003). Usage: node apps/bench/dist/body-parser-cost.js
import { Busboy } from '@fastify/busboy';
import { multipartParser } from '@cotizaciones/koa-server/http/multipart-parser';

const BOUNDARY = 'fcBoundary7MA4YWxkTrZu0gW';
const CHUNK = 64 * 1024;

const part = (name: string, value: string, file = false) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"${file ? '; filename="f.bin"\r\nContent-Type: application/octet-stream' : ''}\r\n\r\n${value}\r\n`;
const end = `--${BOUNDARY}--\r\n`;

const BODIES: ReadonlyArray<readonly [string, Buffer, number]> = [
  [
    "the contract's form (4 fields)",
    Buffer.from(part('id', '12') + part('field', 'benef_emp') + part('value', '15') + part('idEmpresa', '3') + end),
    20_000,
  ],
  ['200 fields of 20 bytes', Buffer.from(Array.from({ length: 200 }, (_, i) => part(`f${i}`, 'v'.repeat(20))).join('') + end), 2_000],
  ['a 1 MiB file between 2 fields', Buffer.from(part('id', '1') + part('up', 'x'.repeat(1 << 20), true) + part('value', '2') + end), 300],
];

function chunks(body: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < body.length; i += CHUNK) out.push(body.subarray(i, i + CHUNK));
  return out;
}

function ownParser(pieces: Buffer[]): Promise<number> {
  let fields = 0;
  const parser = multipartParser(BOUNDARY, () => (fields += 1));
  for (const piece of pieces) parser.write(piece);
  parser.end();
  return Promise.resolve(fields);
}

function busboy(pieces: Buffer[]): Promise<number> {
  let fields = 0;
  const bb = new Busboy({
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    limits: { fieldSize: Infinity },
    isPartAFile: (_name, _type, filename) => filename !== undefined,
  });
  bb.on('field', () => (fields += 1));
  bb.on('file', (_name, stream) => stream.resume());
  const done = new Promise<number>((resolve, reject) => {
    bb.on('finish', () => resolve(fields));
    bb.on('error', reject);
  });
  for (const piece of pieces) bb.write(piece);
  bb.end();
  return done;
}

/** Microseconds of CPU (user + system) per parse, after a tenth as many unmeasured parses; three rounds, the lowest and highest shown. */
async function cpuPerParse(parse: (pieces: Buffer[]) => Promise<number>, pieces: Buffer[], parses: number): Promise<number> {
  for (let i = 0; i < parses / 10; i += 1) await parse(pieces);
  const started = process.cpuUsage();
  for (let i = 0; i < parses; i += 1) await parse(pieces);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / parses;
}

console.log('| Body | hand-written µs CPU/parse | busboy µs CPU/parse |\n|---|---|---|');
for (const [label, body, parses] of BODIES) {
  const pieces = chunks(body);
  const own: number[] = [];
  const theirs: number[] = [];
  // Alternating rounds: a machine that slows down mid-run slows both.
  for (let round = 0; round < 3; round += 1) {
    own.push(await cpuPerParse(ownParser, pieces, parses));
    theirs.push(await cpuPerParse(busboy, pieces, parses));
  }
  const range = (values: number[]) => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
  console.log(`| ${label} | ${range(own)} | ${range(theirs)} |`);
}
