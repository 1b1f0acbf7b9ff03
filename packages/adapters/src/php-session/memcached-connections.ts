import { connect, type Socket } from 'node:net';
import type { MemcachedServer } from './save-path.js';

/** `mg` with the value: what a key holds, or its size alone when that is over the bound. */
export type MetaGet =
  | { readonly kind: 'miss' }
  | { readonly kind: 'oversized'; readonly size: number }
  | { readonly kind: 'hit'; readonly value: Buffer; readonly flags: number; readonly cas: string; readonly ttlSeconds: number };

export interface KeyWithLock {
  readonly key: string;
  readonly lockKey: string;
}

export interface WithLock {
  readonly stored: MetaGet;
  readonly locked: boolean;
}

export type CasReply = 'STORED' | 'EXISTS' | 'NOT_FOUND';

/** The commands the session store sends to one memcached server, each on a connection of its own. */
export interface MemcachedConnections {
  /** The value, its flags, CAS and time to live; a value over `maxBytes` is not transferred (its connection is dropped). */
  get(key: string, maxBytes: number): Promise<MetaGet>;
  /**
   * `get` and `has(lockKey)` of each pair, pipelined in one write on one connection, answered in order:
   * for keys on the same server. The pairs after a value over `maxBytes` are asked again on another
   * connection, that one being dropped unread.
   */
  getWithLocks(pairs: readonly KeyWithLock[], maxBytes: number): Promise<WithLock[]>;
  has(key: string): Promise<boolean>;
  /** The key's CAS value, which every write changes; undefined for no key. */
  casOf(key: string): Promise<string | undefined>;
  /** Whether the key was there to touch. */
  touch(key: string, seconds: number): Promise<boolean>;
  cas(key: string, flags: number, seconds: number, value: Uint8Array, cas: string): Promise<CasReply>;
  version(): Promise<string>;
  close(): void;
}

export interface MemcachedConnectionsOptions {
  /** Bounds each command, from the wait for a connection to the last byte of the reply. */
  readonly commandTimeoutMs: number;
  /** Connections open to the server at most; a command beyond them waits for one. */
  readonly maxConnections: number;
}

/** How often the commands' deadlines are checked: a command fails at most this late past its timeout. */
const WATCH_EVERY_MS = 50;

/** A reply parsed from the bytes received so far: undefined until complete; `drop`: the connection cannot be reused. */
type Parse<T> = (received: Buffer) => { result: T; drop?: boolean } | undefined;

interface Connection {
  readonly socket: Socket;
  received: Buffer;
  /** The command in flight, fed each chunk. */
  onData?: (() => void) | undefined;
  onGone?: ((error: Error) => void) | undefined;
}

/**
 * memcached's text protocol (meta `mg` for reads, so a value's size and time to live come before the
 * value), one request per connection at a time (the reads of a batch pipelined in one write): a slow
 * or large reply holds up its own request only. Idle connections are kept for the next command.
 */
export function memcachedConnections(server: MemcachedServer, options: MemcachedConnectionsOptions): MemcachedConnections {
  const idle: Connection[] = [];
  const waiting: Array<(connection: Connection | undefined) => void> = [];
  let open = 0;
  let closed = false;

  function opened(): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: server.host, port: server.port, noDelay: true });
      const connection: Connection = { socket, received: Buffer.alloc(0) };
      open += 1;
      socket.once('connect', () => resolve(connection));
      socket.on('data', (chunk: Buffer) => {
        connection.received = connection.received.length === 0 ? chunk : Buffer.concat([connection.received, chunk]);
        connection.onData?.();
      });
      socket.once('close', () => {
        open -= 1;
        const index = idle.indexOf(connection);
        if (index >= 0) idle.splice(index, 1);
        connection.onGone?.(new Error(`the connection to memcached at ${server.host}:${server.port} closed`));
        waiting.shift()?.(undefined);
      });
      socket.on('error', (error) => reject(error));
    });
  }

  async function acquire(): Promise<Connection> {
    if (closed) throw new Error('closed');
    const ready = idle.pop();
    if (ready) return ready;
    if (open < options.maxConnections) return opened();
    const handed = await new Promise<Connection | undefined>((resolve) => waiting.push(resolve));
    return handed ?? acquire();
  }

  function release(connection: Connection, drop: boolean): void {
    connection.onData = undefined;
    connection.onGone = undefined;
    if (drop || closed || connection.received.length > 0) {
      connection.socket.destroy();
      return;
    }
    const next = waiting.shift();
    if (next) next(connection);
    else idle.push(connection);
  }

  // Every command's deadline is watched by one timer, running while commands are under way.
  const underWay = new Set<{ readonly deadline: number; fail(error: Error): void }>();
  let watch: NodeJS.Timeout | undefined;
  function expire(): void {
    const now = performance.now();
    for (const command of underWay) {
      if (now >= command.deadline)
        command.fail(new Error(`memcached at ${server.host}:${server.port} did not answer within ${options.commandTimeoutMs} ms`));
    }
    if (underWay.size === 0) {
      clearInterval(watch);
      watch = undefined;
    }
  }

  function command<T>(request: Buffer | string, parse: Parse<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let connection: Connection | undefined;
      let done = false;
      const finish = (outcome: { error: Error } | { result: T; drop?: boolean | undefined }): void => {
        if (done) return;
        done = true;
        underWay.delete(watched);
        if ('error' in outcome) {
          // Failed or timed out mid-reply: the connection's state is unknown.
          if (connection) release(connection, true);
          reject(outcome.error);
          return;
        }
        if (!outcome.drop) connection!.received = Buffer.alloc(0);
        release(connection!, outcome.drop ?? false);
        resolve(outcome.result);
      };
      const watched = { deadline: performance.now() + options.commandTimeoutMs, fail: (error: Error) => finish({ error }) };
      underWay.add(watched);
      watch ??= setInterval(expire, WATCH_EVERY_MS).unref();
      acquire().then(
        (current) => {
          // A connection handed over after the deadline goes back to the others.
          if (done) return release(current, false);
          connection = current;
          current.onData = () => {
            let parsed;
            try {
              parsed = parse(current.received);
            } catch (error) {
              finish({ error: error instanceof Error ? error : new Error(String(error)) });
              return;
            }
            if (parsed) finish(parsed);
          };
          current.onGone = (error) => finish({ error });
          current.socket.write(request);
        },
        (error: unknown) => finish({ error: error instanceof Error ? error : new Error(String(error)) }),
      );
    });
  }

  return {
    get: (key, maxBytes) => command(`mg ${key} t c f v\r\n`, (received) => metaGet(received, maxBytes)),
    async getWithLocks(pairs, maxBytes) {
      const answers: WithLock[] = [];
      while (answers.length < pairs.length) {
        const asked = pairs.slice(answers.length);
        // Pipelined: memcached answers in order, each value's reply before its lock's.
        const request = asked.map(({ key, lockKey }) => `mg ${key} t c f v\r\nmg ${lockKey}\r\n`).join('');
        answers.push(...(await command(request, (received) => withLocks(received, asked.length, maxBytes))));
      }
      return answers;
    },
    has: (key) => command(`mg ${key}\r\n`, (received) => simple(received, { HD: true, EN: false })),
    casOf: (key) =>
      command(`mg ${key} c\r\n`, (received) => {
        const line = lineOf(received);
        if (line === undefined) return undefined;
        if (line.text === 'EN') return { result: undefined };
        const cas = /^HD c(\d+)$/.exec(line.text);
        if (!cas) throw replyError(line.text);
        return { result: cas[1] };
      }),
    touch: (key, seconds) => command(`touch ${key} ${seconds}\r\n`, (received) => simple(received, { TOUCHED: true, NOT_FOUND: false })),
    cas: (key, flags, seconds, value, cas) =>
      command(
        Buffer.concat([Buffer.from(`cas ${key} ${flags} ${seconds} ${value.length} ${cas}\r\n`), value, Buffer.from('\r\n')]),
        (received) => simple<CasReply>(received, { STORED: 'STORED', EXISTS: 'EXISTS', NOT_FOUND: 'NOT_FOUND' }),
      ),
    version: () =>
      command('version\r\n', (received) => {
        const line = lineOf(received);
        if (line === undefined) return undefined;
        if (!line.text.startsWith('VERSION ')) throw replyError(line.text);
        return { result: line.text.slice('VERSION '.length) };
      }),
    close() {
      closed = true;
      for (const connection of idle.splice(0)) connection.socket.destroy();
      for (const resolve of waiting.splice(0)) resolve(undefined);
    },
  };
}

/** An `mg … t c f v` reply, and where it ends; a value over `maxBytes` is dropped, not read. */
function metaGet(received: Buffer, maxBytes: number): { result: MetaGet; end: number; drop?: boolean } | undefined {
  const line = lineOf(received);
  if (line === undefined) return undefined;
  if (line.text === 'EN') return { result: { kind: 'miss' }, end: line.end };
  const header = /^VA (\d+)((?: \S+)*)$/.exec(line.text);
  if (!header) throw replyError(line.text);
  const size = Number(header[1]);
  // Dropped, not read: the value never crosses into this process.
  if (size > maxBytes) return { result: { kind: 'oversized', size }, end: line.end, drop: true };
  if (received.length < line.end + size + 2) return undefined;
  const flags = new Map(
    (header[2] ?? '')
      .trim()
      .split(' ')
      .map((flag): [string, string] => [flag.slice(0, 1), flag.slice(1)]),
  );
  return {
    result: {
      kind: 'hit',
      value: Buffer.from(received.subarray(line.end, line.end + size)),
      flags: Number(flags.get('f') ?? 0),
      cas: flags.get('c') ?? '0',
      ttlSeconds: Number(flags.get('t') ?? -1),
    },
    end: line.end + size + 2,
  };
}

/**
 * The replies to `count` pipelined value-and-lock pairs, once all have come; after a value over
 * `maxBytes`, that pair's (locked: false, the value never read) and the connection dropped.
 */
function withLocks(received: Buffer, count: number, maxBytes: number): { result: WithLock[]; drop?: boolean } | undefined {
  const result: WithLock[] = [];
  let at = 0;
  while (result.length < count) {
    const got = metaGet(at === 0 ? received : received.subarray(at), maxBytes);
    if (!got) return undefined;
    if (got.drop) {
      result.push({ stored: got.result, locked: false });
      return { result, drop: true };
    }
    const rest = received.subarray(at + got.end);
    const lock = lineOf(rest);
    if (lock === undefined) return undefined;
    if (lock.text !== 'HD' && lock.text !== 'EN') throw replyError(lock.text);
    result.push({ stored: got.result, locked: lock.text === 'HD' });
    at += got.end + lock.end;
  }
  return { result };
}

function lineOf(received: Buffer): { text: string; end: number } | undefined {
  const end = received.indexOf('\r\n');
  return end < 0 ? undefined : { text: received.toString('latin1', 0, end), end: end + 2 };
}

function simple<T>(received: Buffer, replies: Record<string, T>): { result: T } | undefined {
  const line = lineOf(received);
  if (line === undefined) return undefined;
  if (!(line.text in replies)) throw replyError(line.text);
  return { result: replies[line.text] as T };
}

function replyError(text: string): Error {
  return new Error(`memcached answered "${text.slice(0, 80)}"`);
}
