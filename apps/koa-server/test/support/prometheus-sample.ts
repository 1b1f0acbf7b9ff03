/** One sample of a Prometheus text exposition, e.g. sample(text, 'activity_log_oldest_pending_seconds'). */
export function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
