/** Removes every key under `prefix` through a connection of its own (tests clean up the sessions they made). */
export async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    for await (const keys of redis.scanStream({ match: `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`, count: 500 })) {
      if ((keys as string[]).length > 0) await redis.unlink(...(keys as string[]));
    }
  } finally {
    redis.disconnect();
  }
}
