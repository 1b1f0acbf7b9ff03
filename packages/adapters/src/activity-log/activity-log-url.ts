export type SqlEngine = 'sqlite' | 'postgres' | 'mysql';

/** Which engine an `ACTIVITY_LOG_URL` names, or undefined when it names none of them. */
export function sqlEngineOf(url: string): SqlEngine | undefined {
  if (url.startsWith('sqlite:')) return 'sqlite';
  if (/^postgres(ql)?:\/\//.test(url)) return 'postgres';
  if (/^(mysql|mariadb):\/\//.test(url)) return 'mysql';
  return undefined;
}

/** Whether `url` names a supported store: `memory:`, `sqlite:<file>`, `postgres://…`, `mysql://…`. */
export function isActivityLogUrl(url: string): boolean {
  return url === 'memory:' || sqlEngineOf(url) !== undefined;
}
