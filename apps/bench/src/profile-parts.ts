/** The parts a server's CPU profile is split into, in the order the report lists them. */
export const PARTS = [
  'Node core and native (HTTP parser, streams, timers, crypto)',
  'socket writes (the write syscalls)',
  "the project's own code (the references': their handler)",
  'garbage collection',
  'Koa, its router and their dependencies',
  'undici',
  'body parsing libraries (qs, type-is, koa-body)',
  'pino',
  'koa-session and cookies',
  'Fastify, its plugins and router',
  'other libraries',
] as const;
export type Part = (typeof PARTS)[number];

const [core, writes, own, gc, koa, undici, body, pino, session, fastify, other] = PARTS;

/** The part the project's own code counts in. */
export const OWN_CODE: Part = own;

/** npm packages by the part they count in; a package not named here is one of the "other libraries". */
const PACKAGE_PARTS: ReadonlyMap<string, Part> = new Map([
  ...[
    'koa',
    '@koa/router',
    'koa-compose',
    'delegates',
    'statuses',
    'http-errors',
    'on-finished',
    'ee-first',
    'vary',
    'accepts',
    'negotiator',
    'encodeurl',
    'escape-html',
    'fresh',
    'only',
    'destroy',
    'depd',
    'path-to-regexp',
    'parseurl',
    'debug',
    'cache-content-type',
    'http-assert',
    'mime-types',
    'mime-db',
    'content-disposition',
  ].map((name) => [name, koa] as const),
  ...[
    'koa-body',
    'co-body',
    'qs',
    'type-is',
    'media-typer',
    'raw-body',
    'inflation',
    'iconv-lite',
    'bytes',
    'content-type',
    'formidable',
    'side-channel',
    'object-inspect',
    'call-bound',
  ].map((name) => [name, body] as const),
  ...[
    'pino',
    'sonic-boom',
    '@pinojs/redact',
    'fast-redact',
    'quick-format-unescaped',
    'atomic-sleep',
    'on-exit-leak-free',
    'thread-stream',
    'safe-stable-stringify',
    'pino-std-serializers',
  ].map((name) => [name, pino] as const),
  ...['koa-session', 'cookies', 'keygrip', 'crc', 'tsscmp'].map((name) => [name, session] as const),
  ['undici', undici],
]);

/** The package a module belongs to: the last `node_modules/` segment of its URL (scoped or not). */
function packageOf(url: string): string | undefined {
  const at = url.lastIndexOf('/node_modules/');
  if (at < 0) return undefined;
  const [first, second] = url.slice(at + '/node_modules/'.length).split('/');
  return first?.startsWith('@') ? `${first}/${second}` : first;
}

const WRITES = new Set(['writev', 'writeBuffer', 'writeString', 'writeUtf8String', 'writeLatin1String', 'writeAsciiString']);

/** Where one sample's function counts; undefined for idle time. */
export function partOf({ functionName, url }: { functionName: string; url: string }): Part | undefined {
  if (functionName === '(idle)') return undefined;
  if (functionName === '(garbage collector)') return gc;
  if (url === '' && WRITES.has(functionName)) return writes;
  const name = packageOf(url);
  if (name === undefined) {
    // Node's own modules and native code, V8's unattributed time included; wasm is undici's HTTP parser.
    if (url.startsWith('wasm://')) return undici;
    return url === '' || url.startsWith('node:') ? core : own;
  }
  if (name.startsWith('@cotizaciones/')) return own;
  if (
    name === 'fastify' ||
    name.startsWith('@fastify/') ||
    [
      'find-my-way',
      'avvio',
      'light-my-request',
      'fast-json-stringify',
      'abstract-logging',
      'process-warning',
      'toad-cache',
      'fastq',
      'reusify',
      'rfdc',
      'secure-json-parse',
      'fast-querystring',
      'fast-decode-uri-component',
      'cookie',
      'ret',
      'safe-regex2',
      'fast-content-type-parse',
    ].includes(name)
  )
    return fastify;
  return PACKAGE_PARTS.get(name) ?? other;
}
