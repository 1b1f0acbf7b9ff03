import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach } from 'vitest';

export const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
// Killed after their test, or after their file for a server several tests share.
const children: Record<'test' | 'file', ChildProcess[]> = { test: [], file: [] };
afterEach(() => {
  for (const child of children.test.splice(0)) child.kill('SIGKILL');
});
afterAll(() => {
  for (const child of children.file.splice(0)) child.kill('SIGKILL');
});

/**
 * Runs the built server as `pnpm start` does, and waits for its "listening" line. Each process has a
 * spool of its own (in the run's temporary folder) unless `env` names one: a killed one's entries must
 * not be forwarded by the next test's server.
 */
export async function startProcess(env: Record<string, string>, main = MAIN, options: { cwd?: string; livesFor?: 'test' | 'file' } = {}) {
  const spool = env.ACTIVITY_LOG_SPOOL ?? join(mkdtempSync(join(tmpdir(), 'spool-')), 'activity-spool');
  const child = spawn(process.execPath, [main], {
    env: { PATH: process.env.PATH, PORT: '0', ACTIVITY_LOG_SPOOL: spool, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: options.cwd,
  });
  children[options.livesFor ?? 'test'].push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /"url":"(http:[^"]+)"/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
  });
  return { child, url, output: () => stdout + stderr, stderr: () => stderr };
}
