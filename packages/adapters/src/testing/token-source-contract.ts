import { describe, expect, it } from 'vitest';
import { TokenUnavailableError, type SessionUser, type TokenSource } from '@cotizaciones/core';

export interface TokenSourceHarness {
  /** A source that can issue tokens for `user`. */
  available(): Promise<{ source: TokenSource; user: SessionUser }>;
  /** A source that cannot (endpoint down, nothing configured, no token in the session). */
  unavailable(): Promise<{ source: TokenSource; user: SessionUser }>;
}

/** The TokenSource port's contract, run against every adapter of it. */
export function testTokenSource(name: string, harness: TokenSourceHarness): void {
  describe(`TokenSource contract: ${name}`, () => {
    it('issues a non-empty token', async () => {
      const { source, user } = await harness.available();
      await expect(source.token(user)).resolves.toMatch(/.+/);
    });

    it('gives the same token to consecutive requests', async () => {
      const { source, user } = await harness.available();
      const first = await source.token(user);
      await expect(source.token(user)).resolves.toBe(first);
    });

    it('fails only with TokenUnavailableError when it cannot issue one', async () => {
      const { source, user } = await harness.unavailable();
      await expect(source.token(user)).rejects.toBeInstanceOf(TokenUnavailableError);
    });

    it('after a rejection, refreshes to another token or says it cannot', async () => {
      const { source, user } = await harness.available();
      const rejected = await source.token(user);
      if (!source.refresh) return;
      const fresh = await source.refresh(user, rejected);
      if (fresh !== undefined) expect(fresh).not.toBe(rejected);
    });
  });
}
