import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { temporaryDirs } from '@cotizaciones/adapters/testing';
import { importCycles, typeScriptFiles } from './support/import-graph.js';

// Lint's import-x/no-cycle does not follow `import type` (decision 035): this graph, built by the
// TypeScript compiler's pre-processing of every source, does, so a cycle of type imports fails too.
const root = fileURLToPath(new URL('../../..', import.meta.url));
const temporaryDir = temporaryDirs();

function cyclesOf(files: Record<string, string>): string[] {
  const dir = temporaryDir('type-import-cycles-');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return importCycles(typeScriptFiles(dir), dir);
}

describe('import cycles, type-only imports included', () => {
  it('none in the TypeScript sources of the packages and apps', () => {
    const files = typeScriptFiles(join(root, 'packages'), join(root, 'apps'));
    expect(files.length).toBeGreaterThan(300);
    expect(importCycles(files, root)).toEqual([]);
  });

  it('finds a cycle made only of `import type`, and one through `export … from`', () => {
    expect(
      cyclesOf({
        'a.ts': "import type { B } from './b.js';\nexport interface A { b: B }\n",
        'b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
      }),
    ).toEqual(['a.ts → b.ts → a.ts']);
    expect(
      cyclesOf({
        'a.ts': "export { type C } from './c.js';\nexport type A = number;\n",
        'b.ts': "import { type A } from './a.js';\nexport type B = A;\n",
        'c.ts': "import type { B } from './b.js';\nexport type C = B;\n",
      }),
    ).toEqual(['a.ts → c.ts → b.ts → a.ts']);
  });

  it('passes the same modules once the loop is cut', () => {
    expect(
      cyclesOf({
        'a.ts': "import type { B } from './b.js';\nexport interface A { b: B }\n",
        'b.ts': 'export interface B { n: number }\n',
      }),
    ).toEqual([]);
  });
});
