/** `check`, failing with a message that names `what` when it fails or takes longer than `ms`. */
export function readinessCheck(check: Promise<unknown>, ms: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([
    check.then(
      () => undefined,
      (error: unknown) => Promise.reject(new Error(`${what}: ${errorText(error)}`)),
    ),
    timeout,
  ]).finally(() => clearTimeout(timer));
}

/** The reasons the checks that failed give: empty when every one passed. */
export async function failedChecks(checks: ReadonlyArray<Promise<void>>): Promise<string[]> {
  const settled = await Promise.allSettled(checks);
  return settled.flatMap((check) => (check.status === 'rejected' ? [errorText(check.reason)] : []));
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
