import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killOnExit } from './kill-on-exit.js';
import { portAnswers } from './port-answers.js';

/**
 * A private memcached on its own port, started as a daemon with a pid file (`memcached -d -P`), stopped
 * by that pid. `send` writes raw protocol text and gives the reply up to `until` (a test's own view).
 */
export function memcachedProcess(port: number, extraArgs: readonly string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'memcached-test-'));
  const pidFile = join(dir, 'pid');
  let pid: number | undefined;
  let release: () => void = () => undefined;
  const kill = () => {
    if (pid === undefined) return;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    pid = undefined;
  };
  return {
    port,
    address: `127.0.0.1:${port}`,
    async start() {
      const started = spawnSync('memcached', [
        '-p',
        String(port),
        '-l',
        '127.0.0.1',
        '-U',
        '0',
        '-d',
        '-u',
        'root',
        '-P',
        pidFile,
        ...extraArgs,
      ]);
      if (started.status !== 0) throw new Error(`memcached did not start on ${port}: ${started.stderr.toString()}`);
      release = killOnExit(kill);
      for (let i = 0; i < 100; i += 1) {
        // The daemon listens before it writes its pid file: both, then.
        const written = Number(existsSync(pidFile) ? readFileSync(pidFile, 'utf8') : '');
        if (written > 0 && (await portAnswers(port))) {
          pid = written;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`memcached did not answer on ${port}`);
    },
    async stop() {
      release();
      const stopped = pid;
      kill();
      // Gone once its port refuses.
      while (stopped !== undefined && (await portAnswers(port))) await new Promise((resolve) => setTimeout(resolve, 20));
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
    send(text: string | Buffer, until: RegExp = /\r\n$/): Promise<string> {
      return new Promise((resolve, reject) => {
        const socket = createConnection(port, '127.0.0.1');
        let reply = '';
        socket.on('data', (chunk: Buffer) => {
          reply += chunk.toString('latin1');
          if (until.test(reply)) {
            socket.destroy();
            resolve(reply);
          }
        });
        socket.once('error', reject);
        socket.write(text);
      });
    },
  };
}

export type MemcachedProcess = ReturnType<typeof memcachedProcess>;
