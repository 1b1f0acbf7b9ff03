/** What a load of numbered changes got back. */
export interface ChangeLoad {
  /** The changes answered 200 `{"ok":true}`, by their number. */
  readonly ok: number[];
  /** Answers of any other kind, and requests that failed. */
  readonly failed: number;
}

/**
 * `clients` loops, each sending its next numbered change (`send(n)`, numbers unique across the loops)
 * as soon as the last one is answered, until `durationMs` has passed: a closed-loop load, as many
 * signed-in clients would make.
 */
export async function changeLoad(
  send: (n: number) => Promise<Response>,
  options: { clients: number; durationMs: number },
): Promise<ChangeLoad> {
  const ok: number[] = [];
  let failed = 0;
  let next = 1;
  const end = Date.now() + options.durationMs;
  const client = async () => {
    while (Date.now() < end) {
      const n = next++;
      try {
        const response = await send(n);
        if (response.status === 200 && (await response.text()) === '{"ok":true}') ok.push(n);
        else failed += 1;
      } catch {
        failed += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: options.clients }, client));
  return { ok, failed };
}
