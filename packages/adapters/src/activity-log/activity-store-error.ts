/**
 * Why a store did not take a write, in the adapters' own terms:
 * - `refused`: the store rejected what an entry holds (too long for a column, a
 *   character the table's charset cannot store, a constraint). Trying the same
 *   entry again fails again: it is set aside, and the rest of its batch written.
 * - `unavailable`: the store could not be reached or was in trouble (connection
 *   refused or lost, a timeout, a lock, the server shutting down). The same
 *   write may succeed later: it is retried with backoff.
 */
export type StoreFailure = 'refused' | 'unavailable';

/** A failed store operation, without the driver's error (which may carry the SQL and its values). */
export class ActivityStoreError extends Error {
  override readonly name = 'ActivityStoreError';
  constructor(
    readonly failure: StoreFailure,
    /** The driver's code: an SQLSTATE, a MySQL error name, an SQLite result code, an errno name. */
    readonly code: string,
    message: string,
  ) {
    // Bounded: a driver message may quote the refused value.
    super(message.length > 300 ? `${message.slice(0, 300)}…` : message);
  }
}

export function isRefusal(error: unknown): error is ActivityStoreError {
  return error instanceof ActivityStoreError && error.failure === 'refused';
}

/** The code and message of whatever a driver threw. */
export function describeError(error: unknown): { code: string; message: string } {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'UNKNOWN';
  return { code, message: error instanceof Error ? error.message : String(error) };
}

/**
 * An error we cannot place counts as `unavailable`: refusing would move every
 * entry to the dead-letter file during an outage we failed to recognise, while
 * retrying loses nothing (the queue bound caps the cost) and an operator sees
 * the repeated failure in the server log.
 */
export function storeError(error: unknown, isRefused: (error: unknown) => boolean, secrets: readonly string[] = []): ActivityStoreError {
  if (error instanceof ActivityStoreError) return error;
  const { code, message } = describeError(error);
  const told = secrets.reduce((text, secret) => text.replaceAll(secret, '***'), message);
  return new ActivityStoreError(isRefused(error) ? 'refused' : 'unavailable', code, told);
}

/** The password of a database URL as a driver may quote it, raw and decoded: never to be shown. */
export function urlSecrets(url: string): string[] {
  const password = URL.canParse(url) ? new URL(url).password : '';
  if (password === '') return [];
  try {
    return [...new Set([password, decodeURIComponent(password)])];
  } catch {
    return [password]; // Not percent-encoded as it should be: only the raw form can appear.
  }
}
