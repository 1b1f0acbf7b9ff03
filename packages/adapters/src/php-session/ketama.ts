import type { MemcachedServer } from './save-path.js';

/** Points each server takes on the continuum: libmemcached's MEMCACHED_POINTS_PER_SERVER. */
const POINTS_PER_SERVER = 100;

/**
 * libmemcached's placement of keys across servers as php-memcached sets it for sessions
 * (`memcached.sess_consistent_hash=On`, type `ketama`): every server takes 100 points named
 * `host:port-0` … `host:port-99`, keys and points are hashed with Jenkins' one-at-a-time hash (the
 * default hash, which this ketama mode keeps), and a key belongs to the first point at or after its
 * hash, wrapping around. The key hashed is the one without `memcached.sess_prefix` (libmemcached's
 * namespace is not hashed): `<id>` and `lock.<id>`. Weights play no part in this mode.
 */
export function ketamaPlacement<T extends MemcachedServer>(servers: readonly T[]): (key: string) => T {
  if (servers.length === 1) return () => servers[0]!;
  const points: Array<{ hash: number; server: T }> = [];
  for (const server of servers) {
    for (let index = 0; index < POINTS_PER_SERVER; index += 1)
      points.push({ hash: oneAtATime(`${server.host}:${server.port}-${index}`), server });
  }
  points.sort((a, b) => a.hash - b.hash);
  return (key) => {
    const hash = oneAtATime(key);
    let low = 0;
    let high = points.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (points[middle]!.hash < hash) low = middle + 1;
      else high = middle;
    }
    return points[low === points.length ? 0 : low]!.server;
  };
}

/** Jenkins' one-at-a-time hash of the key's bytes, as libhashkit computes it. */
function oneAtATime(text: string): number {
  let hash = 0;
  for (const byte of Buffer.from(text)) {
    hash = (hash + byte) >>> 0;
    hash = (hash + (hash << 10)) >>> 0;
    hash = (hash ^ (hash >>> 6)) >>> 0;
  }
  hash = (hash + (hash << 3)) >>> 0;
  hash = (hash ^ (hash >>> 11)) >>> 0;
  return (hash + (hash << 15)) >>> 0;
}
