// Run by each package's build after tsc: writes dist/.source-hash, a hash of what src/ held when dist/
// was built. staleBuild (packages/adapters/src/build/stale-build.ts, same hash) compares it with src/
// now: content, not file times, which turbo's cache and git checkouts do not keep in step.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const hash = createHash('sha256');
const files = readdirSync('src', { withFileTypes: true, recursive: true })
  .filter((entry) => entry.isFile())
  .map((entry) => relative('src', join(entry.parentPath, entry.name)).split(sep).join('/'))
  .sort();
for (const file of files) hash.update(`${file}\0`).update(readFileSync(join('src', file))).update('\0');
writeFileSync(join('dist', '.source-hash'), `${hash.digest('hex')}\n`);
