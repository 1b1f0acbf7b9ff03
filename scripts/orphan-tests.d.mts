export interface Orphan {
  file: string;
  why: string;
}

export interface PackageRuns {
  dir: string;
  tiers: Map<string, string>;
  scripts: { task: string; command: string; files: Set<string> }[];
}

/** Every `*.test.ts` under `root`, relative to it with `/`, outside the skipped and dot directories. */
export function testFiles(root: string): string[];

/** The files of `files` that no script of `packages` runs, each with why. */
export function orphans(files: string[], packages: PackageRuns[]): Orphan[];

/** The test files under `root` that the turbo tasks `taskArgs` never run, and the count per tier of those that run. */
export function findOrphanTests(
  root: string,
  taskArgs: string[][],
  env?: NodeJS.ProcessEnv,
): Promise<{ orphans: Orphan[]; perTier: Record<string, number> }>;
