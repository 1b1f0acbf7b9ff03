/** RFC 3339, as docker (`logs -t`), kubectl (`logs --timestamps`) and journalctl's `short-iso` print it. */
const ISO_TIME = String.raw`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:?\d\d)`;
/** journalctl's `short` and `short-precise`: `Mar 04 05:06:08`, `Mar  4 05:06:08.123456`. */
const SYSLOG_TIME = String.raw`[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d{1,6})?`;

/**
 * What a log keeper puts before a line the process wrote, one form each:
 * - docker logs -t, kubectl logs --timestamps: `<RFC 3339> `;
 * - kubectl logs --prefix (with or without --timestamps): `[pod/<name>/<container>] `;
 * - docker compose logs (with or without -t): `<service>-1  | `;
 * - journalctl (short, short-precise, short-iso, short-iso-precise): `<time> <host> <identifier>[<pid>]: `.
 */
const KEEPER_PREFIX = new RegExp(
  '^(?:' +
    [
      `${ISO_TIME} `,
      String.raw`\[[^\]\s]+\] (?:${ISO_TIME} )?`,
      String.raw`[\w.-]+ *\| (?:${ISO_TIME} )?`,
      String.raw`(?:${SYSLOG_TIME}|${ISO_TIME}) [^\s]+ [^\s[\]:]+(?:\[\d+\])?: `,
    ].join('|') +
    ')?$',
);

/** Whether `prefix` (all that comes before a line the process wrote) is nothing, or one a known log keeper adds. */
export const isKeeperPrefix = (prefix: string): boolean => KEEPER_PREFIX.test(prefix);
