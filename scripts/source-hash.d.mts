/** A hash of the files under `dir`: their paths and contents. */
export function sourceHash(dir: string): string;
