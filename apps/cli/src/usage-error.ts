/** A mistake in how the tool was called or configured: exit code 2, one clear line, nothing sent. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
