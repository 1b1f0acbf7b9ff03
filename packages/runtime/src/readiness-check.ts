/** Something a readiness check found wrong. */
export interface Finding {
  /** The part that failed and how, for anyone who asks: no host, port or driver message. */
  readonly summary: string;
  /** The same in the cause's own words (hosts, ports, driver messages): for a holder of the metrics token. */
  readonly detail: string;
}

/** A finding with nothing to keep from anyone (`shutting down`). */
export const plainFinding = (text: string): Finding => ({ summary: text, detail: text });

/** A failed check: what it found. */
class CheckFailure extends Error {
  constructor(readonly finding: Finding) {
    super(finding.detail);
  }
}

/** `check`, failing with a finding that names `what` when it fails or takes longer than `ms`. */
export function readinessCheck(check: Promise<unknown>, ms: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckFailure(plainFinding(`${what}: no answer within ${ms} ms`))), ms);
  });
  return Promise.race([
    check.then(
      () => undefined,
      // The driver's message names hosts and ports: only the detail carries it.
      (error: unknown) => Promise.reject(new CheckFailure({ summary: `${what}: unavailable`, detail: `${what}: ${errorText(error)}` })),
    ),
    timeout,
  ]).finally(() => clearTimeout(timer));
}

/** What the checks that failed found: empty when every one passed. */
export async function failedChecks(checks: ReadonlyArray<Promise<void>>): Promise<Finding[]> {
  const settled = await Promise.allSettled(checks);
  return settled.flatMap((check) => (check.status === 'rejected' ? [findingOf(check.reason)] : []));
}

/** What a failure found; one not made by {@link readinessCheck} says only that a check failed, to anyone but the token's holder. */
export function findingOf(error: unknown): Finding {
  return error instanceof CheckFailure ? error.finding : { summary: 'a readiness check failed', detail: errorText(error) };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
