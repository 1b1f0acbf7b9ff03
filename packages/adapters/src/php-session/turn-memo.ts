/**
 * Answers kept until the end of the current event-loop turn (its check phase), then forgotten. The
 * requests of one turn had all arrived when the first of them asked, so one answer taken in that turn
 * serves them all: many connections naming one session cost one system call a turn, not one each.
 */
export interface TurnMemo<V> {
  /** The answer given for `key` earlier in this turn, or `compute()`'s, kept if defined (and while fewer than the bound are kept). */
  get(key: string, compute: () => V | undefined): V | undefined;
  /** Forgets `key`'s answer: the caller changed what it was taken from. */
  forget(key: string): void;
}

export function turnMemo<V>(maxEntries: number): TurnMemo<V> {
  const answers = new Map<string, V>();
  let clearing = false;
  const clear = () => {
    answers.clear();
    clearing = false;
  };
  return {
    get(key, compute) {
      const kept = answers.get(key);
      if (kept !== undefined) return kept;
      const answer = compute();
      if (answer === undefined || answers.size >= maxEntries) return answer;
      answers.set(key, answer);
      if (!clearing) {
        clearing = true;
        setImmediate(clear);
      }
      return answer;
    },
    forget(key) {
      answers.delete(key);
    },
  };
}
