/**
 * The reference targets' activity log: entries queue up in memory and are "written" in one go
 * every 50 ms, as the service's buffered log does, minus the database. `count()` is what the
 * bench's check compares with the successful requests.
 */
export function batchedLog(): { record(entry: unknown): void; count(): number } {
  let queue: unknown[] = [];
  let rows = 0;
  setInterval(() => {
    rows += queue.length;
    queue = [];
  }, 50).unref();
  return {
    record: (entry) => void queue.push(entry),
    count: () => rows + queue.length,
  };
}
