import { SessionUnavailableError } from '@cotizaciones/core';
import { ketamaPlacement } from './ketama.js';
import { memcachedConnections, type KeyWithLock, type MemcachedConnections, type MetaGet, type WithLock } from './memcached-connections.js';
import { readBatches } from './read-batches.js';
import type { MemcachedServer } from './save-path.js';
import {
  expiryDue,
  readyWithin,
  type PhpSaveHandlerStore,
  type ReadOptions,
  type RewriteResult,
  type StoredSession,
} from './save-handler-store.js';
import { LOCK_WAIT_MS, sharedLocks } from './shared-lock.js';

export interface MemcachedStoreOptions {
  readonly servers: readonly MemcachedServer[];
  /** php.ini `memcached.sess_prefix`. */
  readonly prefix: string;
  readonly gcMaxLifetimeSeconds: number;
  readonly maxBytes: number;
  /** How many requests may wait on PHP's lock keys at once (fewer per session and per client); past it, 503 with a retry hint. */
  readonly maxLockWaiters: number;
  readonly onLockWaiters?: (waiting: number) => void;
  readonly now: () => number;
  readonly commandTimeoutMs?: number;
}

/** memcached refuses longer keys: PHP cannot have stored a session under one. */
const MAX_KEY_BYTES = 250;
const ABSENT: StoredSession = { kind: 'absent' };
/** Sessions read by one pipelined write at most. */
const MAX_BATCH = 16;
/** Batches of reads under way at once on one server. */
const IN_FLIGHT_BATCHES = 8;

/**
 * php-memcached's session handler: `<prefix><id>` holds the session_encode string, written whole by
 * one `set` with expiry gc_maxlifetime, on the server libmemcached's ketama placement picks for
 * `<id>`. A memcached value is replaced atomically, so a read is never half-written: every read is
 * final. PHP's lock (`memcached.sess_locking`, on by default) is the key `<prefix>lock.<id>`, added
 * when a request opens the session and deleted when it closes it, with the session's new version
 * written just before. It orders requests: a read that finds it waits (bounded, as with the files'
 * flock) until PHP's request is done or has written, so the answer follows that request as a second
 * PHP request's would — a sign-out in progress is not answered as signed in. A lock key with no
 * session key is a session PHP has opened and holds with no value yet: absent at once, not waited
 * for (anyone can open one on an id of their choosing). The activity rewrite
 * yields to a held lock and writes with `cas`, so it never replaces a version PHP wrote after the read.
 */
export function phpMemcachedStore(options: MemcachedStoreOptions): PhpSaveHandlerStore {
  const commandTimeoutMs = options.commandTimeoutMs ?? 2_000;
  const servers = options.servers.map((server) => ({
    ...server,
    connections: memcachedConnections(server, { commandTimeoutMs, maxConnections: 32 }),
  }));
  const serverFor = ketamaPlacement(servers);
  // Each server's reads asked for together go in one write, on one connection (one round trip's write
  // and wake-up of memcached costs more than the read); the reads of another moment take other connections.
  const batches = new Map(
    servers.map(({ connections }) => [
      connections,
      readBatches<KeyWithLock, WithLock>({
        maxBatch: MAX_BATCH,
        maxInFlight: IN_FLIGHT_BATCHES,
        waitMs: commandTimeoutMs,
        timedOut: () => new Error(`no memcached connection free within ${commandTimeoutMs} ms`),
        run: (pairs) => connections.getWithLocks(pairs, options.maxBytes),
      }),
    ]),
  );
  const batchesOf = (connections: MemcachedConnections) => batches.get(connections)!;
  const locks = sharedLocks({
    maxWaiters: options.maxLockWaiters,
    waitMs: LOCK_WAIT_MS,
    ...(options.onLockWaiters ? { onWaiters: options.onLockWaiters } : {}),
  });

  /** The session's key and its lock's, each with the server it is on; undefined if memcached could not hold it. */
  function keysOf(id: string): { data: Placed; lock: Placed } | undefined {
    const data = options.prefix + id;
    if (Buffer.byteLength(data) + 'lock.'.length > MAX_KEY_BYTES) return undefined;
    return {
      data: { key: data, on: serverFor(id).connections },
      lock: { key: `${options.prefix}lock.${id}`, on: serverFor(`lock.${id}`).connections },
    };
  }

  async function call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      if (error instanceof SessionUnavailableError) throw error;
      throw new SessionUnavailableError('the PHP session store (memcached) is unreachable', { cause: error });
    }
  }

  async function readData({ key, on }: Placed): Promise<StoredSession> {
    return sessionOf(await on.get(key, options.maxBytes));
  }

  function sessionOf(reply: MetaGet): StoredSession {
    if (reply.kind === 'miss') return ABSENT;
    if (reply.kind === 'oversized') return { kind: 'refused', reason: 'oversized', detail: `${reply.size} bytes` };
    // PHP sets gc_maxlifetime at each write and touch: the expiry last moved that long before it falls.
    const modifiedMs = reply.ttlSeconds < 0 ? undefined : options.now() + reply.ttlSeconds * 1000 - options.gcMaxLifetimeSeconds * 1000;
    return modifiedMs === undefined
      ? { kind: 'data', bytes: reply.value, final: true }
      : { kind: 'data', bytes: reply.value, final: true, modifiedMs };
  }

  /** The session as stored, and whether PHP's lock key is held: one round trip when both keys are on one server. */
  async function readWithLock(data: Placed, lock: Placed): Promise<[StoredSession, boolean]> {
    if (data.on === lock.on) {
      const reply = await batchesOf(data.on).get({ key: data.key, lockKey: lock.key });
      return [sessionOf(reply.stored), reply.locked];
    }
    return Promise.all([readData(data), lock.on.has(lock.key)]);
  }

  async function read(id: string, { client }: ReadOptions): Promise<StoredSession> {
    const keys = keysOf(id);
    if (!keys) return ABSENT;
    const { data, lock } = keys;
    const [session, locked] = await readWithLock(data, lock);
    // Not locked, or locked with no value: nothing a wait would change for this read.
    if (!locked || session.kind === 'absent') return session;
    const cas = await data.on.casOf(data.key);
    const waited = await locks.take(
      { session: id, client },
      async () => !(await lock.on.has(lock.key)),
      async () => (await data.on.casOf(data.key)) !== cas,
    );
    if (waited === 'timeout' || waited === 'busy') throw locks.refusal(waited);
    // PHP's request is done, or wrote its version: read that.
    return readData(data);
  }

  async function rewrite(id: string, change: (bytes: Uint8Array) => Uint8Array | undefined): Promise<RewriteResult> {
    const keys = keysOf(id);
    if (!keys) return 'absent';
    const { data, lock } = keys;
    // A PHP request holds the session: it writes its own version at its end.
    if (await lock.on.has(lock.key)) return 'yielded';
    const stored = await data.on.get(data.key, options.maxBytes);
    if (stored.kind === 'miss') return 'absent';
    if (stored.kind === 'oversized') return 'unchanged';
    const next = change(stored.value);
    if (next === undefined) return 'unchanged';
    // cas: stored only if nobody wrote since the read, and never recreates a session PHP destroyed.
    const reply = await data.on.cas(data.key, stored.flags, options.gcMaxLifetimeSeconds, next, stored.cas);
    return reply === 'STORED' ? 'written' : reply === 'EXISTS' ? 'yielded' : 'absent';
  }

  async function ping(): Promise<void> {
    await call(() => Promise.all(servers.map((server) => server.connections.version())));
  }

  return {
    read: (id, readOptions = {}) => call(() => read(id, readOptions)),
    async touchExpiry(id, modifiedMs) {
      const keys = keysOf(id);
      if (!keys || !expiryDue(modifiedMs, options.now(), options.gcMaxLifetimeSeconds)) return;
      await call(() => keys.data.on.touch(keys.data.key, options.gcMaxLifetimeSeconds));
    },
    rewrite: (id, change) => call(() => rewrite(id, change)),
    ping,
    ready: (timeoutMs) => readyWithin(ping, timeoutMs),
    describe() {
      return `memcached at ${options.servers.map(({ host, port }) => `${host}:${port}`).join(', ')}, keys "${options.prefix}<id>"`;
    },
    close() {
      for (const server of servers) server.connections.close();
      return Promise.resolve();
    },
  };
}

interface Placed {
  readonly key: string;
  readonly on: MemcachedConnections;
}
