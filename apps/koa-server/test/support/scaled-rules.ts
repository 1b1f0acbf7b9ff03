import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse, stringify } from 'yaml';

const SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** A PromQL or rule duration (`5m`, `3d`) divided by `factor`, in whole seconds, at least `min`. */
function scaled(amount: string, unit: string, factor: number, min: number): string {
  return `${Math.max(min, Math.round((Number(amount) * SECONDS[unit]!) / factor))}s`;
}

export interface ScaleOptions {
  /** How much faster time runs in the copy: 60 turns a minute into a second. */
  readonly factor: number;
  /** Thresholds that are themselves durations in seconds (an age, a lag), each scaled the same way: the exact text to find. */
  readonly secondsThresholds: readonly string[];
}

/**
 * Copies of rule files with time run `factor` times faster: every range (`[5m]`), every `for:` and
 * every threshold named as seconds, so that a fault fires its alert and a repair resolves it within
 * seconds against a live service, with the rules' expressions otherwise as shipped. Each group is
 * evaluated every second. Returns the copies' paths.
 */
export function scaledRuleFiles(files: readonly string[], dir: string, { factor, secondsThresholds }: ScaleOptions): string[] {
  return files.map((file) => {
    const rules = parse(readFileSync(file, 'utf8')) as { groups: { interval?: string; rules: { expr: string; for?: string }[] }[] };
    for (const group of rules.groups) {
      group.interval = '1s';
      for (const rule of group.rules) {
        // A range below 3 s would hold fewer than the two samples rate() needs at a 1 s scrape.
        rule.expr = rule.expr.replace(/\[(\d+)([smhd])\]/g, (_, amount: string, unit: string) => `[${scaled(amount, unit, factor, 3)}]`);
        for (const threshold of secondsThresholds) {
          const [text, value] = /^(.*?)(\d+)$/.exec(threshold)!.slice(1) as [string, string];
          rule.expr = rule.expr.replaceAll(threshold, `${text}${Math.max(1, Math.round(Number(value) / factor))}`);
        }
        if (rule.for) rule.for = rule.for.replace(/^(\d+)([smhd])$/, (_, amount: string, unit: string) => scaled(amount, unit, factor, 1));
      }
    }
    const copy = join(dir, basename(file));
    writeFileSync(copy, stringify(rules));
    return copy;
  });
}
