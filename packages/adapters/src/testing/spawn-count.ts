import { ChildProcess } from 'node:child_process';
import { vi } from 'vitest';

/** Every process this process starts from now on, whatever the API (spawn, execFile, fork all go through it); undone by `vi.restoreAllMocks()`. */
export function countSpawns() {
  // `spawn` is on ChildProcess's prototype, undeclared in Node's types.
  return vi.spyOn(ChildProcess.prototype as unknown as { spawn: (options: unknown) => void }, 'spawn');
}
