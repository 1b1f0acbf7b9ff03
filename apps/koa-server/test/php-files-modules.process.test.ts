import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { temporaryDirs } from '@cotizaciones/adapters/testing';
import { startProcess } from './support/process.js';

// A save handler's clients are imported by its registry entry's `open`, only when it is chosen: a
// `files` deployment, the default, must start without any of the others' (Redis, memcached, SQL).

const temporaryDir = temporaryDirs();

/** Written to the process's loader thread: every module URL the server resolves, one a line, into the file it is given. */
const HOOKS = `import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(file, resolved.url + '\\n');
  return resolved;
}`;
const asModule = (code: string) => `data:text/javascript,${encodeURIComponent(code)}`;
const PRELOAD = `import { register } from 'node:module'; register(${JSON.stringify(asModule(HOOKS))}, { data: process.env.MODULE_TRACE });`;

describe('a SESSION_STORE=php deployment with the files handler, in the server process', () => {
  it('has loaded, once listening, the files store and no other handler or its client (ioredis, kysely, pg, mysql2, memcached)', async () => {
    const dir = temporaryDir('php-files-modules-');
    const trace = join(dir, 'modules.txt');
    const { child } = await startProcess({
      SESSION_STORE: 'php',
      PHP_SESSION_SAVE_HANDLER: 'files',
      PHP_SESSION_SAVE_PATH: dir,
      MODULE_TRACE: trace,
      NODE_OPTIONS: `--import=${asModule(PRELOAD)}`,
    });
    child.kill('SIGKILL');
    const modules = readFileSync(trace, 'utf8').split('\n');
    // The trace works: the chosen handler's store is in it.
    expect(modules.filter((url) => url.endsWith('/php-session/php-files-store.js'))).not.toEqual([]);
    const others = modules.filter((url) =>
      /\/node_modules\/(ioredis|kysely|pg|mysql2|better-sqlite3)\/|\/php-session\/(php-(redis|redis-cluster|memcached|pdo)-store|memcached-connections|pdo-connection)\.js$/.test(
        url,
      ),
    );
    expect([...new Set(others)]).toEqual([]);
  });
});
