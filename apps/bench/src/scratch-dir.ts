import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let scratch: string | undefined;

/** A new folder for one SQLite file, inside one folder per bench run that goes when the run ends. */
export function scratchDir(prefix: string): string {
  if (scratch === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-run-'));
    scratch = dir;
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return mkdtempSync(join(scratch, prefix));
}
