import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { toStoredActivity, type SqlActivityLogStore } from './activity-log-store.js';
import type { SqliteReply, SqliteRequest } from './sqlite-worker.js';
import { ActivityStoreError } from './activity-store-error.js';
import { isSqliteRefusal } from './sql-error-kinds.js';

/**
 * Under vitest this module runs from src/ (TypeScript); the worker always runs the built file,
 * so a build older than the sources is refused rather than run.
 */
async function workerFile(): Promise<URL> {
  const beside = new URL('./sqlite-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(beside))) return beside;
  const { staleBuild } = await import('../build/stale-build.js');
  const stale = staleBuild(fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, ''));
  if (stale) throw new Error(`the SQLite worker is not built from these sources: ${stale}`);
  return new URL('../../dist/activity-log/sqlite-worker.js', import.meta.url);
}

type Pending = { resolve(result: unknown): void; reject(error: Error): void };
type Request = SqliteRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

/**
 * The activity log in a SQLite file, written by a worker thread: the requests'
 * event loop only hands over batches. Creates the table when missing.
 */
export async function openSqliteActivityLogStore(file: string, table: string): Promise<SqlActivityLogStore> {
  const worker = new Worker(await workerFile(), { workerData: { file, table } });
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let failure: Error | undefined;

  const started = new Promise<void>((resolve, reject) => pending.set(0, { resolve: () => resolve(), reject }));
  worker.on('message', (reply: SqliteReply) => {
    const waiting = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.ok) waiting?.resolve(reply.result);
    else
      waiting?.reject(
        new ActivityStoreError(isSqliteRefusal(reply.code) ? 'refused' : 'unavailable', reply.code, `SQLite: ${reply.error}`),
      );
  });
  const fail = (error: Error) => {
    failure = new ActivityStoreError('unavailable', 'WORKER_STOPPED', error.message);
    for (const waiting of pending.values()) waiting.reject(failure);
    pending.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the SQLite worker stopped (exit code ${code})`)));

  const call = (request: Request): Promise<unknown> => {
    if (failure) return Promise.reject(failure);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...request, id });
    });
  };

  try {
    await started;
  } catch (error) {
    await worker.terminate();
    throw error;
  }
  return {
    engine: 'sqlite',
    table,
    async write(entries) {
      if (entries.length > 0) await call({ op: 'write', rows: entries.map(toStoredActivity) });
    },
    // SQLite enforces no declared length or charset: only the store's own checks refuse.
    refusalOf: () => undefined,
    async ping() {
      await call({ op: 'ping' });
    },
    recent: (limit) => call({ op: 'recent', limit }) as ReturnType<SqlActivityLogStore['recent']>,
    storedRequestIds: async (ids) => new Set((await call({ op: 'requestIds', ids })) as string[]),
    async close() {
      worker.removeAllListeners('exit');
      failure ??= new ActivityStoreError('unavailable', 'CLOSED', 'the SQLite activity log is closed');
      await worker.terminate();
    },
  };
}
