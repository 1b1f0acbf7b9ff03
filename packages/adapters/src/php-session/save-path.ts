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
