import { locksAvailable } from '../fs/flock.js';
import { DEFAULT_PDO_COLUMNS, DEFAULT_PDO_TABLE, parsePdoColumns, parsePdoSavePath, parsePdoTable } from './pdo-table.js';
import type { PhpSessionProblem, PhpSessionSettings, PhpSettingsProblem } from './settings.js';
import type { PhpSaveHandlerStore } from './save-handler-store.js';
import { parseFilesSavePath, parseMemcachedSavePath, parseRedisClusterSavePath, parseRedisSavePath } from './save-path.js';

/** What `phpSessions` hands the store it opens: the settings every store follows, and where to tell. */
export interface SaveHandlerContext {
  readonly gcMaxLifetimeSeconds: number;
  readonly maxBytes: number;
  readonly lockWaiters: number;
  readonly now: () => number;
  readonly report: (problem: PhpSessionProblem) => void;
  readonly onLockWaiters?: (waiting: number) => void;
  readonly onConnectionError?: (error: Error) => void;
}

/**
 * One of PHP's save handlers (docs/recipes.md, "A PHP save handler"): everything the configuration, the
 * adapter, the traces and the logs know of it. This file is light (the configuration loads it in every
 * process); `open` imports the handler's store, and so its client, only when the handler is chosen.
 */
export interface PhpSaveHandlerEntry<Name extends string = string> {
  /** php.ini `session.save_handler`. */
  readonly name: Name;
  /** Whose handler it is, as the configuration's refusal names it (`phpredis`). */
  readonly owner: string;
  /** The form of its `session.save_path`, as the configuration asks for it. */
  readonly savePathForm: string;
  /** Its settings beyond the common ones, with their defaults: the one place they are spelled. */
  readonly defaults: Partial<PhpSessionSettings>;
  /** Where the sessions live, as a span's `cotizaciones.session.mode` says it. */
  readonly mode: `php ${Name}`;
  /** Who a connection error is about, as the log line names it. */
  readonly logName: string;
  /** Throws, in words the configuration prints after the variable's name, on a save path it cannot read. */
  parseSavePath(text: string): unknown;
  /** The rules of its own settings beyond the save path. */
  problems?(settings: PhpSessionSettings): PhpSettingsProblem[];
  /** Its store; may throw at once (a start-up refusal) before importing anything. */
  open(
    settings: Required<Pick<PhpSessionSettings, 'savePath'>> & PhpSessionSettings,
    context: SaveHandlerContext,
  ): Promise<PhpSaveHandlerStore>;
}

/** An entry with its name's literal type kept, so the handler names' union derives from the list. */
export function saveHandler<const Name extends string>(entry: PhpSaveHandlerEntry<Name>): PhpSaveHandlerEntry<Name> {
  return entry;
}

const onConnectionError = (context: SaveHandlerContext) =>
  context.onConnectionError ? { onConnectionError: context.onConnectionError } : {};
const onLockWaiters = (context: SaveHandlerContext) => (context.onLockWaiters ? { onLockWaiters: context.onLockWaiters } : {});

export const FILES = saveHandler({
  name: 'files',
  owner: 'PHP',
  savePathForm: 'a directory',
  defaults: {},
  mode: 'php files',
  logName: 'PHP sessions (files)',
  parseSavePath: parseFilesSavePath,
  open(settings, context) {
    const savePath = parseFilesSavePath(settings.savePath);
    // Checked once here rather than failing every request that meets a PHP write in progress.
    if (!locksAvailable()) {
      throw new Error(
        "PHP_SESSION_SAVE_HANDLER=files needs flock(2), PHP's own lock, which the service takes through koffi: koffi's prebuilt binary did not load on this platform (is the optional package for this platform installed?)",
      );
    }
    return import('./php-files-store.js').then(({ phpFilesStore }) =>
      phpFilesStore({
        ...savePath,
        gcMaxLifetimeSeconds: context.gcMaxLifetimeSeconds,
        maxBytes: context.maxBytes,
        maxLockWaiters: context.lockWaiters,
        ...onLockWaiters(context),
        now: context.now,
        onTouchRefused: (error) =>
          context.report({
            kind: 'touch-refused',
            detail: `${(error as NodeJS.ErrnoException).code ?? error.message}: only the files' owner may set their time: run the service as the PHP user`,
          }),
      }),
    );
  },
});

export const REDIS = saveHandler({
  name: 'redis',
  owner: 'phpredis',
  savePathForm: 'tcp://host:port?…',
  defaults: {},
  mode: 'php redis',
  logName: 'PHP sessions (Redis)',
  parseSavePath: parseRedisSavePath,
  open: async (settings, context) =>
    (await import('./php-redis-store.js')).phpRedisStore({
      ...parseRedisSavePath(settings.savePath),
      gcMaxLifetimeSeconds: context.gcMaxLifetimeSeconds,
      maxBytes: context.maxBytes,
      now: context.now,
      ...onConnectionError(context),
    }),
});

export const REDIS_CLUSTER = saveHandler({
  name: 'rediscluster',
  owner: 'phpredis',
  savePathForm: 'seed[]=host:port&…',
  defaults: {},
  mode: 'php rediscluster',
  logName: 'PHP sessions (Redis Cluster)',
  parseSavePath: parseRedisClusterSavePath,
  open: async (settings, context) =>
    (await import('./php-redis-cluster-store.js')).phpRedisClusterStore({
      ...parseRedisClusterSavePath(settings.savePath),
      gcMaxLifetimeSeconds: context.gcMaxLifetimeSeconds,
      maxBytes: context.maxBytes,
      now: context.now,
      ...onConnectionError(context),
    }),
});

const MEMCACHED_DEFAULTS = { memcachedPrefix: 'memc.sess.key.' };

export const MEMCACHED = saveHandler({
  name: 'memcached',
  owner: 'php-memcached',
  savePathForm: 'host:port,…',
  defaults: MEMCACHED_DEFAULTS,
  mode: 'php memcached',
  logName: 'PHP sessions (memcached)',
  parseSavePath: parseMemcachedSavePath,
  open: async (settings, context) =>
    (await import('./php-memcached-store.js')).phpMemcachedStore({
      servers: parseMemcachedSavePath(settings.savePath),
      prefix: settings.memcachedPrefix ?? MEMCACHED_DEFAULTS.memcachedPrefix,
      gcMaxLifetimeSeconds: context.gcMaxLifetimeSeconds,
      maxBytes: context.maxBytes,
      maxLockWaiters: context.lockWaiters,
      ...onLockWaiters(context),
      now: context.now,
    }),
});

// Symfony's table, in PHP_SESSION_PDO_COLUMNS's own form (id, data, lifetime, time).
const PDO_DEFAULTS = {
  pdoTable: DEFAULT_PDO_TABLE,
  pdoColumns: [DEFAULT_PDO_COLUMNS.id, DEFAULT_PDO_COLUMNS.data, DEFAULT_PDO_COLUMNS.lifetime, DEFAULT_PDO_COLUMNS.time].join(','),
};

export const PDO = saveHandler({
  name: 'pdo',
  owner: 'a session table',
  savePathForm: 'the database as mysql://…, postgres://… or sqlite:<file>',
  defaults: PDO_DEFAULTS,
  mode: 'php pdo',
  logName: 'PHP sessions (PDO)',
  parseSavePath: parsePdoSavePath,
  problems(settings) {
    const problems: PhpSettingsProblem[] = [];
    for (const [variable, value, parse] of [
      ['PHP_SESSION_PDO_TABLE', settings.pdoTable, parsePdoTable],
      ['PHP_SESSION_PDO_COLUMNS', settings.pdoColumns, parsePdoColumns],
    ] as const) {
      try {
        if (value !== undefined) parse(value);
      } catch (error) {
        problems.push({ variable, line: `${variable} "${value}" ${(error as Error).message}` });
      }
    }
    return problems;
  },
  open: async (settings, context) =>
    (await import('./php-pdo-store.js')).phpPdoStore({
      database: parsePdoSavePath(settings.savePath),
      table: parsePdoTable(settings.pdoTable ?? PDO_DEFAULTS.pdoTable),
      columns: parsePdoColumns(settings.pdoColumns ?? PDO_DEFAULTS.pdoColumns),
      gcMaxLifetimeSeconds: context.gcMaxLifetimeSeconds,
      maxBytes: context.maxBytes,
      now: context.now,
      ...onConnectionError(context),
    }),
});

/** The save handlers `PHP_SESSION_SAVE_HANDLER` can name; `files` first, the default. */
export const SAVE_HANDLERS = [FILES, REDIS, REDIS_CLUSTER, MEMCACHED, PDO] as const;

/** php.ini `session.save_handler` values this adapter reads. */
export type PhpSaveHandler = (typeof SAVE_HANDLERS)[number]['name'];

/** The entry named `name` among `handlers`, or undefined. */
export function saveHandlerNamed(name: string, handlers: readonly PhpSaveHandlerEntry[] = SAVE_HANDLERS): PhpSaveHandlerEntry | undefined {
  return handlers.find((handler) => handler.name === name);
}
