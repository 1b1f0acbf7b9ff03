import { isAbsolute } from 'node:path';

/** `session.save_path` for `files`: `/dir`, `N;/dir` or `N;MODE;/dir` (N levels of one-character sub-folders). */
export interface FilesSavePath {
  readonly dir: string;
  readonly depth: number;
}

/** `session.save_path` for phpredis: one `tcp://host:port?…` or `unix:///path?…` server. */
export interface RedisSavePath {
  readonly host?: string;
  readonly port?: number;
  readonly socket?: string;
  readonly prefix: string;
  readonly database: number;
  readonly username?: string;
  readonly password?: string;
}

/** phpredis save-path parameters that only tune its own connection: accepted and not needed here. */
const IGNORED_REDIS_PARAMS = new Set(['weight', 'timeout', 'read_timeout', 'persistent', 'persistent_id', 'retry_interval']);

export function parseFilesSavePath(text: string): FilesSavePath {
  const parts = text.split(';');
  if (parts.length > 3) throw new Error('expected a directory, "N;/dir" or "N;MODE;/dir"');
  const dir = parts[parts.length - 1] ?? '';
  const depthText = parts.length > 1 ? (parts[0] ?? '') : '0';
  if (!/^\d{1,2}$/.test(depthText) || Number(depthText) > 16) throw new Error(`"${depthText}" is not a directory depth (0 to 16)`);
  if (parts.length === 3 && !/^[0-7]{1,4}$/.test(parts[1] ?? '')) throw new Error(`"${parts[1]}" is not an octal file mode`);
  if (!isAbsolute(dir)) throw new Error('the directory must be an absolute path');
  return { dir, depth: Number(depthText) };
}

export function parseRedisSavePath(text: string): RedisSavePath {
  if (text.includes(','))
    throw new Error('several Redis servers (phpredis spreads sessions across them by weight) are not supported: give one');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error('expected tcp://host:port?… or unix:///path/to/socket?…');
  }
  const params = url.searchParams;
  const result: { -readonly [K in keyof RedisSavePath]: RedisSavePath[K] } = { prefix: 'PHPREDIS_SESSION:', database: 0 };
  for (const name of new Set(params.keys())) {
    if (name === 'prefix') result.prefix = params.get(name) ?? '';
    else if (name === 'database') {
      const database = params.get(name) ?? '';
      if (!/^\d{1,5}$/.test(database)) throw new Error('database must be a number');
      result.database = Number(database);
    } else if (name === 'auth') result.password = params.get(name) ?? '';
    else if (name === 'auth[]') {
      // phpredis 5.3+: auth[]=user&auth[]=password (or one entry: the password).
      const [first, second, ...rest] = params.getAll(name);
      if (first !== undefined && second !== undefined && rest.length === 0) [result.username, result.password] = [first, second];
      else if (first !== undefined && second === undefined) result.password = first;
      else throw new Error('auth[] takes a password or a user and a password');
    } else if (name === 'compression') {
      throw new Error(
        'compression is not supported: the service reads the serialized bytes PHP writes (leave redis.session.compression at none)',
      );
    } else if (!IGNORED_REDIS_PARAMS.has(name)) throw new Error(`the parameter "${name}" is not supported`);
  }
  if (url.username || url.password) throw new Error('phpredis takes credentials as ?auth=…, not in the address');
  if (url.protocol === 'tcp:') {
    if (!url.hostname) throw new Error('tcp:// needs a host');
    result.host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    result.port = url.port ? Number(url.port) : 6379;
  } else if (url.protocol === 'unix:') {
    if (!url.pathname || url.host) throw new Error('expected unix:///absolute/path/to/socket');
    result.socket = decodeURIComponent(url.pathname);
  } else {
    throw new Error(`the scheme "${url.protocol}" is not supported: tcp:// or unix://`);
  }
  return result;
}

/** One server of php-memcached's `session.save_path`. */
export interface MemcachedServer {
  readonly host: string;
  readonly port: number;
}

/**
 * `session.save_path` for php-memcached: `host:port[:weight],…`, as libmemcached parses it. A weight is
 * accepted and not used: php-memcached's default placement (`memcached.sess_consistent_hash_type=ketama`)
 * does not weigh servers.
 */
export function parseMemcachedSavePath(text: string): MemcachedServer[] {
  if (/^(PERSISTENT=|--)/.test(text.trim()))
    throw new Error('libmemcached options ("PERSISTENT=…", "--SERVER=…") are not supported: list the servers as host:port,host:port');
  return text.split(',').map((entry) => {
    const match = /^([A-Za-z0-9.-]+)(?::(\d{1,5}))?(?::(\d{1,5}))?$/.exec(entry.trim());
    const port = Number(match?.[2] ?? 11211);
    if (!match || port < 1 || port > 65535)
      throw new Error(
        `"${entry.trim()}" is not a memcached server: expected host:port[:weight] (a socket path or an IPv6 address is not supported)`,
      );
    return { host: match[1]!, port };
  });
}

/** `session.save_path` for phpredis's `rediscluster` handler: `seed[]=host:port&…&prefix=…&auth=…`. */
export interface RedisClusterSavePath {
  readonly seeds: readonly { readonly host: string; readonly port: number }[];
  readonly prefix: string;
  readonly username?: string;
  readonly password?: string;
}

/** phpredis's cluster session parameters that only tune its own connections: accepted and not needed here. */
const IGNORED_CLUSTER_PARAMS = new Set(['persistent']);
const FAILOVER_MODES = new Set(['none', 'error', 'distribute']);

/**
 * Read as phpredis reads it (`redis_session.c`, PS_OPEN_FUNC(rediscluster)): PHP's query-string parser
 * (`&`-separated, URL-decoded, `name[]` collects a list, the last of a name wins), seeds `host:port` split
 * at the last `:`, `prefix` (default `PHPREDIS_CLUSTER_SESSION:`), `auth` as a password or `auth[]` as
 * user and password. Where phpredis skips a bad seed or reads a bad number as 0, this refuses it: a save
 * path copied wrong is said at start-up.
 */
export function parseRedisClusterSavePath(text: string): RedisClusterSavePath {
  const scalars = new Map<string, string>();
  const lists = new Map<string, [key: string, value: string][]>();
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const name = phpUrlDecode(at < 0 ? pair : pair.slice(0, at));
    const value = phpUrlDecode(at < 0 ? '' : pair.slice(at + 1));
    const list = /^([^[]+)\[([^\]]*)\]$/.exec(name);
    if (list) {
      const entries = lists.get(list[1]!) ?? [];
      entries.push([list[2]!, value]);
      lists.set(list[1]!, entries);
      scalars.delete(list[1]!);
    } else {
      scalars.set(name, value);
      lists.delete(name);
    }
  }
  const seeds = lists.get('seed');
  if (!seeds || seeds.length === 0) throw new Error("expected phpredis's cluster form: seed[]=host:port&seed[]=host:port&…");
  const result: { -readonly [K in keyof RedisClusterSavePath]: RedisClusterSavePath[K] } = {
    seeds: seeds.map(([, seed]) => parseSeed(seed)),
    prefix: 'PHPREDIS_CLUSTER_SESSION:',
  };
  for (const [name, value] of scalars) {
    if (name === 'prefix') result.prefix = value;
    else if (name === 'auth') result.password = value;
    else if (name === 'timeout' || name === 'read_timeout') {
      if (!/^\d+(\.\d+)?$/.test(value)) throw new Error(`${name} must be a number of seconds, 0 or more`);
    } else if (name === 'failover') {
      if (!FAILOVER_MODES.has(value.toLowerCase())) throw new Error('failover must be none, error or distribute');
    } else if (name === 'database') throw new Error('a Redis Cluster has only database 0: remove database=');
    else if (!IGNORED_CLUSTER_PARAMS.has(name)) throw new Error(`the parameter "${name}" is not supported`);
  }
  for (const [name, values] of lists) {
    if (name === 'seed') continue;
    if (name === 'auth') {
      // phpredis: one entry is the password; two are the user and the password, by name or in order.
      const named = new Map(values);
      if (values.length === 1) result.password = values[0]![1];
      else if (values.length === 2) {
        result.username = named.get('user') ?? values[0]![1];
        result.password = named.get('pass') ?? values[1]![1];
      } else throw new Error('auth[] takes a password or a user and a password');
    } else if (name === 'stream') {
      throw new Error('stream[…] (TLS settings) is not supported: the service connects to the cluster without TLS');
    } else throw new Error(`the parameter "${name}[]" is not supported`);
  }
  return result;
}

function parseSeed(seed: string): { host: string; port: number } {
  if (/^[a-z]+:\/\//i.test(seed)) throw new Error(`the seed "${seed}" names a scheme: only plain host:port seeds (no TLS) are supported`);
  const at = seed.lastIndexOf(':');
  const host = seed.slice(0, at).replace(/^\[(.*)\]$/, '$1');
  const port = Number(seed.slice(at + 1));
  if (at <= 0 || !/^\d{1,5}$/.test(seed.slice(at + 1)) || port < 1 || port > 65535 || /[\s/]/.test(host)) {
    throw new Error(`the seed "${seed}" is not host:port`);
  }
  return { host, port };
}

/** PHP's urldecode: `+` is a space, `%XX` a byte; a bad escape stays as written. */
function phpUrlDecode(text: string): string {
  const bytes = Buffer.from(text.replace(/\+/g, ' '), 'utf8');
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i += 1) {
    const hex = bytes[i] === 0x25 ? bytes.subarray(i + 1, i + 3).toString('latin1') : '';
    if (/^[0-9a-fA-F]{2}$/.test(hex)) {
      out.push(parseInt(hex, 16));
      i += 2;
    } else out.push(bytes[i]!);
  }
  return Buffer.from(out).toString('utf8');
}
