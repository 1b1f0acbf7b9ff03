const kills = new Set<() => void>();

/**
 * Runs `kill` if this process exits before the returned release is called: a run that dies before
 * its teardown must not leave a helper process running. One exit listener for every helper, however
 * many a file starts at once.
 */
export function killOnExit(kill: () => void): () => void {
  if (kills.size === 0) process.once('exit', killAll);
  kills.add(kill);
  return () => {
    kills.delete(kill);
    if (kills.size === 0) process.off('exit', killAll);
  };
}

function killAll(): void {
  for (const kill of kills) kill();
}
