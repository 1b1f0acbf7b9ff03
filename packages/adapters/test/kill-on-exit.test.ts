import { expect, it } from 'vitest';
import { killOnExit } from '../src/testing/kill-on-exit.js';

it('holds one exit listener for any number of helpers, and none once each is released', () => {
  const before = process.listenerCount('exit');
  const releases = Array.from({ length: 20 }, () => killOnExit(() => undefined));
  expect(process.listenerCount('exit')).toBe(before + 1);
  for (const release of releases.slice(1)) release();
  expect(process.listenerCount('exit')).toBe(before + 1);
  releases[0]!();
  expect(process.listenerCount('exit')).toBe(before);
});

it('kills at exit exactly the helpers not released', () => {
  const killed: number[] = [];
  const releases = [1, 2, 3].map((n) => killOnExit(() => killed.push(n)));
  releases[1]!();
  const listener = process.listeners('exit').at(-1)!;
  listener.call(process, 0);
  expect(killed).toEqual([1, 3]);
  for (const release of releases) release();
});
