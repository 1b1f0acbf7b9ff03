import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint, type Linter } from 'eslint';
import { parser } from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { temporaryDirs } from '@cotizaciones/adapters/testing';

// The repository's own rule (eslint.config.js), on modules written here: lint fails on a new cycle.
const { noImportCycles } = (await import(new URL('../../../eslint.config.js', import.meta.url).href)) as { noImportCycles: Linter.Config };
const temporaryDir = temporaryDirs();

async function lint(files: Record<string, string>): Promise<string[]> {
  const dir = temporaryDir('import-cycles-');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const eslint = new ESLint({
    cwd: dir,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser } }, noImportCycles],
  });
  const results = await eslint.lintFiles(['*.ts']);
  return results.flatMap((result) =>
    result.messages.map((message) => `${result.filePath.slice(dir.length + 1)}: ${message.ruleId ?? ''} ${message.message}`),
  );
}

describe('the import-cycle rule', () => {
  it('fails on two modules that import each other, at both imports', async () => {
    const problems = await lint({
      'a.ts': "import { b } from './b.js';\nexport const a = (): number => b() + 1;\n",
      'b.ts': "import { a } from './a.js';\nexport const b = (): number => a() + 1;\n",
    });
    expect(problems.sort()).toEqual([
      'a.ts: import-x/no-cycle Dependency cycle detected',
      'b.ts: import-x/no-cycle Dependency cycle detected',
    ]);
  });

  it('fails on a longer cycle, and passes the same modules once the loop is cut', async () => {
    const c = "import { a } from './a.js';\nexport const c = (): number => a();\n";
    const modules = {
      'a.ts': "import { b } from './b.js';\nexport const a = (): number => b();\n",
      'b.ts': "import { c } from './c.js';\nexport const b = (): number => c();\n",
    };
    expect(await lint({ ...modules, 'c.ts': c })).toHaveLength(3);
    expect(await lint({ ...modules, 'c.ts': 'export const c = (): number => 1;\n' })).toEqual([]);
  });
});
