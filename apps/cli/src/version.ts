import { readFileSync } from 'node:fs';

/** The tool's version, from its package.json: in `--version` and in each audit row's user agent. */
export const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
