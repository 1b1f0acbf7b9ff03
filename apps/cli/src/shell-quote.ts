/** An argument as a POSIX shell reads it back. */
export function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}

/** The same command: a rerun skips what the journal says was applied and goes on with the rest. */
export function resumeCommand(args: readonly string[]): string {
  return `to resume, run: cotizaciones ${args.map(shellQuote).join(' ')}`;
}
