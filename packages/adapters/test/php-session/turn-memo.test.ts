import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { turnMemo } from '../../src/php-session/turn-memo.js';

/** A computation that counts its calls and answers `answer()`. */
function counted<V>(answer: () => V | undefined) {
  const calls = { n: 0 };
  return { calls, compute: () => ((calls.n += 1), answer()) };
}

describe('turnMemo', () => {
  it('computes once per key in a turn, and again in the next turn', async () => {
    const memo = turnMemo<string>(10);
    let value = 'first';
    const { calls, compute } = counted(() => value);
    const thisTurn = Array.from({ length: 5 }, () => memo.get('a', compute));
    expect(thisTurn).toEqual(Array.from({ length: 5 }, () => 'first'));
    expect(calls.n).toBe(1);
    value = 'second';
    await nextTurn();
    expect(memo.get('a', compute)).toBe('second');
    expect(calls.n).toBe(2);
  });

  it('keeps no undefined answer, forgets a key on demand, and keeps at most its bound', () => {
    const memo = turnMemo<number>(2);
    const none = counted<number>(() => undefined);
    memo.get('x', none.compute);
    memo.get('x', none.compute);
    expect(none.calls.n).toBe(2);

    const one = counted(() => 1);
    memo.get('a', one.compute);
    memo.forget('a');
    memo.get('a', one.compute);
    expect(one.calls.n).toBe(2);

    memo.get('b', one.compute);
    const third = counted(() => 3);
    memo.get('c', third.compute);
    memo.get('c', third.compute);
    expect(third.calls.n).toBe(2);
  });
});
