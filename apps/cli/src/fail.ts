/** Ends the program with `code`, the lines on stderr. */
export function fail(code: number, lines: readonly string[]): never {
  process.stderr.write(lines.map((line) => `${line}\n`).join(''));
  process.exit(code);
}
