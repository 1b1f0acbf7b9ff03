// Run by each package's build after tsc: writes dist/.source-hash, a hash of what src/ held when dist/
// was built, so what runs built code can tell a build older than its sources: content, not file times,
// which turbo's cache and git checkouts do not keep in step.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sourceHash } from './source-hash.mjs';

writeFileSync(join('dist', '.source-hash'), `${sourceHash('src')}\n`);
