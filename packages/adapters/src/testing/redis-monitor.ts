import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

/**
 * Every command Redis ran while `during` ran, as seen by MONITOR (each one its arguments).
 * A marker command sent after `during` closes the window: once MONITOR shows it, it has
 * shown everything before it, so there is no fixed wait to guess.
 */
export async function redisCommandsDuring(url: string, during: () => Promise<void>): Promise<string[][]> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  const monitor = await client.monitor();
  try {
    const marker = `monitor-marker-${randomUUID()}`;
    const seen: string[][] = [];
    const closed = new Promise<void>((resolve) => {
      monitor.on('monitor', (_time: string, args: string[]) => {
        if (args.includes(marker)) resolve();
        else seen.push(args);
      });
    });
    await during();
    await client.echo(marker);
    await closed;
    return seen;
  } finally {
    monitor.disconnect();
    client.disconnect();
  }
}
