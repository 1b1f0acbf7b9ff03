import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/**
 * Another process holding an exclusive flock on `path` (util-linux `flock`), as the replay command
 * holds the dead-letter file while it takes it aside: the service's appends wait until `release()`.
 * `--no-fork`: the lock and the process killed at the release are one.
 */
export async function holdLock(path: string): Promise<{ release(): Promise<void> }> {
  const child: ChildProcess = spawn('flock', ['--exclusive', '--no-fork', path, '-c', 'echo held; exec sleep 600'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await once(child.stdout!, 'data');
  return {
    async release() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
  };
}
