/**
 * The memory limit the process runs under (its cgroup's), in bytes; 0 when there is none. Node
 * versions say "none" differently: undefined (unknown), 0, or about 2^64 (cgroup v2's `max`, as Node 20 reads it).
 */
export function memoryLimitBytes(read: () => number | undefined = () => process.constrainedMemory?.()): number {
  const limit = read() ?? 0;
  // "No limit" is cgroup v2's `max`, read as the largest 64-bit value: no machine has that memory.
  return Number.isFinite(limit) && limit > 0 && limit < NO_LIMIT ? limit : 0;
}

const NO_LIMIT = 2 ** 62;
