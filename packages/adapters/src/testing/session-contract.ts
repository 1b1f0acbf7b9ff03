import { describe, expect, it } from 'vitest';
import type { SessionUser } from '@cotizaciones/core';

export interface SessionHarness {
  /** The port's answer for a session whose `user` key holds `user` (absent when `undefined`). */
  currentUserWith(user: unknown): Promise<SessionUser | undefined>;
}

/** The Session port's contract, run against every adapter of it. */
export function testSession(name: string, harness: SessionHarness): void {
  describe(`Session contract: ${name}`, () => {
    it('has no user when the session has none', async () => {
      await expect(harness.currentUserWith(undefined)).resolves.toBeUndefined();
    });

    it('returns the user, with its id as text', async () => {
      await expect(harness.currentUserWith({ id: 7, name: 'Ana' })).resolves.toEqual({ id: '7', name: 'Ana' });
      await expect(harness.currentUserWith({ id: 'u-1' })).resolves.toEqual({ id: 'u-1' });
    });

    it.each([
      ['an empty object', {}],
      ['an empty id', { id: '' }],
      ['a null id', { id: null }],
      ['an object id', { id: { nested: 1 } }],
      ['a string', 'ana'],
      ['null', null],
      ['an array', [{ id: 1 }]],
    ])('has no user when `user` is %s', async (_, user) => {
      await expect(harness.currentUserWith(user)).resolves.toBeUndefined();
    });
  });
}
