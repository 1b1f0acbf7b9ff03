import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** The TypeScript sources under `dirs`, recursively (no node_modules, dist or dot folders). */
export function typeScriptFiles(...dirs: string[]): string[] {
  return dirs.flatMap((dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory())
        return ['node_modules', 'dist'].includes(entry.name) || entry.name.startsWith('.') ? [] : typeScriptFiles(path);
      return /\.m?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
    }),
  );
}

/**
 * Each file's relative imports among `files`, `import type` and `export … from` included (the
 * compiler's own pre-processing reads them all): `./x.js` is the source `./x.ts`.
 */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files.map((file) => resolve(file)));
  const graph = new Map<string, string[]>();
  for (const file of known) {
    const imported = ts
      .preProcessFile(readFileSync(file, 'utf8'), true, true)
      .importedFiles.map((reference) => reference.fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => resolve(dirname(file), specifier).replace(/\.(m?)js$/, '.$1ts'))
      .map((path) => (known.has(path) || existsSync(path) ? path : join(path, 'index.ts')))
      .filter((path) => known.has(path));
    graph.set(file, [...new Set(imported)]);
  }
  return graph;
}

/**
 * The import cycles among `files`, type-only imports included: each as its modules relative to
 * `root`, from the first in order, closed by that first one again (`a.ts → b.ts → a.ts`).
 */
export function importCycles(files: string[], root: string): string[] {
  const graph = importGraph(files);
  // Tarjan's strongly connected components: a component of more than one module, or one that imports itself, holds a cycle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || graph.get(file)?.includes(file)) components.push(component);
    }
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return components.map((component) =>
    cycleThrough(component.sort(), graph)
      .map((file) => relative(root, file))
      .join(' → '),
  );
}

/** One cycle within a component: from its first module, the shortest way back to it. */
function cycleThrough(component: string[], graph: Map<string, string[]>): string[] {
  const start = component[0]!;
  const members = new Set(component);
  const from = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const next of graph.get(file) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(from.get(path[0]!)!);
        return [...path, start];
      }
      if (!from.has(next)) {
        from.set(next, file);
        queue.push(next);
      }
    }
  }
  return component;
}
