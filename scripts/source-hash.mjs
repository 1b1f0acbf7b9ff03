// A hash of the files under a folder: their paths and contents. What dist/.source-hash holds (written by
// stamp-build.mjs, read by ready.mjs and by the adapters' staleBuild, which computes the same).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export function sourceHash(dir) {
  const hash = createHash('sha256');
  const files = readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(dir, file)))
      .update('\0');
  return hash.digest('hex');
}
