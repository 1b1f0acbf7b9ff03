import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from './scratch-dir.js';

export interface Spawned {
  readonly child: ChildProcess;
  readonly url: string;
  readonly pid: number;
  stop(): Promise<number | null>;
}

/** Starts a Node process and waits for the first stdout line carrying a `"url"`. A service gets an activity spool of its own in the run's scratch folder. */
export function spawnServer(
  script: string,
  args: string[],
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
): Promise<Spawned> {
  const spool = join(scratchDir('spool-'), 'activity-spool');
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
    env: { PATH: process.env.PATH, ACTIVITY_LOG_SPOOL: spool, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /"url":"(http:[^"]+)"/.exec(output)?.[1];
      if (url) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve({
          child,
          url,
          pid: child.pid ?? 0,
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null) return done(child.exitCode);
              child.once('exit', (code) => done(code));
              child.kill('SIGTERM');
            }),
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}: ${output.slice(-2000)}`)));
  });
}

/** CPU time (user + system) a process has used, all its threads or only one of them (its main thread: `tid` = `pid`), in ms. */
export function cpuMs(pid: number, tid?: number): number {
  const fields =
    readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8')
      .split(') ')[1]
      ?.split(' ') ?? [];
  // utime and stime are fields 14 and 15 of /proc/pid/stat, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Resident memory now and at its peak, in MB. */
export function memoryMb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** How long a thread (its main one: `tid` = `pid`) has waited, runnable, for a CPU (`/proc/…/schedstat`'s run delay), in ms. */
export function runDelayMs(pid: number, tid = pid): number {
  return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
}
