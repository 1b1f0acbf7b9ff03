import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { killOnExit } from './kill-on-exit.js';

let php: boolean | undefined;
/** Whether PHP's CLI is installed (the development and CI machines have it; .ci/run installs it); says so when not. */
export function phpAvailable(): boolean {
  php ??= spawnSync('php', ['-v']).status === 0;
  if (!php) console.warn('\n[php session tests] SKIPPING: no php on the PATH (apt-get install php-cli php-redis)\n');
  return php;
}

/** The fixture pages the PHP-session tests drive (in the package's test folder; this file runs from dist/testing/). */
export const phpFixtures = fileURLToPath(new URL('../../test/fixtures/php/', import.meta.url));

/** A free loopback port. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** `-d` flags for PHP's session ini (quoted: `;` starts a comment in ini syntax, and save paths contain it). */
export function iniFlags(ini: Record<string, string>): string[] {
  return Object.entries({ 'session.gc_probability': '0', 'session.use_strict_mode': '1', ...ini }).flatMap(([key, value]) => [
    '-d',
    `${key}="${value}"`,
  ]);
}

/**
 * `php -S` serving the fixture pages with the given session ini: the PHP app whose sessions the adapter reads.
 * `workers` > 1 serves that many requests at once (PHP_CLI_SERVER_WORKERS), as php-fpm's pool does.
 */
export async function phpServer(ini: Record<string, string>, { workers = 1 }: { workers?: number } = {}) {
  const port = await freePort();
  const child: ChildProcess = spawn('php', [...iniFlags(ini), '-S', `127.0.0.1:${port}`, '-t', phpFixtures], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: workers > 1 ? { ...process.env, PHP_CLI_SERVER_WORKERS: String(workers) } : process.env,
    // Its workers are processes of their own that outlive it: in a group of their own, signalled together.
    detached: workers > 1,
  });
  const signal = (name: NodeJS.Signals) => {
    if (workers <= 1) return child.kill(name);
    try {
      return process.kill(-child.pid!, name);
    } catch {
      return false; // The group is gone.
    }
  };
  // A run that dies before its afterAll must not leave PHP listening.
  const release = killOnExit(() => signal('SIGKILL'));
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i += 1) {
    try {
      await fetch(`${base}/expiry.php?handler=none`);
      break;
    } catch (error) {
      if (i > 100 || child.exitCode !== null) throw new Error(`php -S did not start: ${errors}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    base,
    /** GETs a fixture page with an optional session cookie; gives the JSON and the session cookie PHP set. */
    async get<T = unknown>(path: string, cookie?: string): Promise<{ body: T; cookie: string | undefined }> {
      const response = await fetch(`${base}/${path}`, { signal: AbortSignal.timeout(10_000), ...(cookie ? { headers: { cookie } } : {}) });
      const text = await response.text();
      if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
      const setCookie = response.headers
        .getSetCookie()
        .filter((line) => line.startsWith('PHPSESSID='))
        .at(-1);
      return { body: JSON.parse(text) as T, cookie: setCookie?.split(';')[0] };
    },
    get errors() {
      return errors;
    },
    async stop() {
      release();
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        signal('SIGTERM');
        // php -S dies at once on SIGTERM; a machine too loaded to let it run gets SIGKILL rather than a hung hook.
        const stubborn = setTimeout(() => signal('SIGKILL'), 3_000);
        await exited;
        clearTimeout(stubborn);
      }
      // Workers that outlived it.
      if (workers > 1) signal('SIGKILL');
    },
  };
}

export type PhpServer = Awaited<ReturnType<typeof phpServer>>;
