import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { killOnExit } from './kill-on-exit.js';
import { portAnswers } from './port-answers.js';

let available: boolean | undefined;
/** Whether a redis-server binary is on the PATH (the development and CI machines have one); says so when not. */
export function redisServerAvailable(): boolean {
  available ??= spawnSync('redis-server', ['--version']).status === 0;
  if (!available) console.warn('\n[redis tests] SKIPPING the tests that stop and restart a private redis-server: none on the PATH\n');
  return available;
}

/** A private redis-server on its own port, that a test may stop and start again. */
export function redisProcess(port: number, extraArgs: readonly string[] = []) {
  let child: ChildProcess | undefined;
  return {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extraArgs], {
        stdio: 'ignore',
      });
      const started = child;
      started.once(
        'exit',
        killOnExit(() => started.kill('SIGKILL')),
      );
      for (let i = 0; i < 100; i += 1) {
        if (await portAnswers(port)) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`redis-server did not start on ${port}`);
    },
    async stop() {
      if (!child || child.exitCode !== null) return;
      child.kill('SIGKILL');
      await once(child, 'exit');
    },
  };
}

export type RedisProcess = ReturnType<typeof redisProcess>;
