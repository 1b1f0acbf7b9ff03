import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TokenUnavailableError, type SessionUser, type TokenSource } from '@cotizaciones/core';
import { forClaim, required, type TokenSourceClaims } from './claims.js';

export interface TokenSourceHarness {
  /** A source that can issue tokens for `user`. */
  readonly source: TokenSource;
  readonly user: SessionUser;
  /** The same adapter where it cannot (endpoint down, nothing configured, no token in the session). */
  readonly unavailable: { readonly source: TokenSource; readonly user: SessionUser };
  close?(): Promise<void>;
}

/**
 * The TokenSource port's contract, run against every adapter of it. `claims.refresh`: the source
 * renews a token the upstream rejected (a source that never can omits `refresh`, and does not claim it).
 */
export function testTokenSource(name: string, createHarness: () => Promise<TokenSourceHarness>, claims: TokenSourceClaims = {}): void {
  describe(`TokenSource contract: ${name}`, () => {
    let harness: TokenSourceHarness;
    beforeEach(async () => {
      harness = await createHarness();
    });
    afterEach(() => harness.close?.());

    it('issues a non-empty token', async () => {
      const { source, user } = harness;
      await expect(source.token(user)).resolves.toMatch(/.+/);
    });

    it('gives the same token to consecutive requests', async () => {
      const { source, user } = harness;
      const first = await source.token(user);
      await expect(source.token(user)).resolves.toBe(first);
    });

    it('fails only with TokenUnavailableError when it cannot issue one', async () => {
      const { source, user } = harness.unavailable;
      await expect(source.token(user)).rejects.toBeInstanceOf(TokenUnavailableError);
    });

    forClaim('refresh', claims.refresh === true, () => {
      it('after a rejection, refreshes to a different non-empty token, which later requests get', async () => {
        const { source, user } = harness;
        const rejected = await source.token(user);
        const fresh = await required(source, 'refresh', 'refresh')(user, rejected);
        expect(fresh).toMatch(/.+/);
        expect(fresh).not.toBe(rejected);
        await expect(source.token(user)).resolves.toBe(fresh);
      });

      it('gives requests rejected together one fresh token', async () => {
        const { source, user } = harness;
        const rejected = await source.token(user);
        const refresh = required(source, 'refresh', 'refresh');
        const fresh = await Promise.all(Array.from({ length: 5 }, () => refresh(user, rejected)));
        expect(new Set(fresh).size).toBe(1);
        expect(fresh[0]).toMatch(/.+/);
        expect(fresh[0]).not.toBe(rejected);
      });

      it('answers undefined, or fails only with TokenUnavailableError, when it cannot refresh', async () => {
        const { source, user } = harness.unavailable;
        const outcome = await required(
          source,
          'refresh',
          'refresh',
        )(user, 'rejected-token').then(
          (token) => ({ token }),
          (error: unknown) => ({ error }),
        );
        if ('error' in outcome) expect(outcome.error).toBeInstanceOf(TokenUnavailableError);
        else expect(outcome.token).toBeUndefined();
      });
    });
  });
}
