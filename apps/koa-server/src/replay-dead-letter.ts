// `npm run activity:replay -- [file]`: writes the entries of the activity log's dead-letter file to
// the store named by ACTIVITY_LOG_URL / ACTIVITY_LOG_TABLE (the service's own variables, read by the
// runtime's rules) and keeps in the file only the entries still refused. Exit 0 when the file is left empty, 1 otherwise.
import { replayDeadLetterFile, sqlEngineOf } from '@cotizaciones/adapters';
import { openSqlActivityLogStore } from '@cotizaciones/adapters/sql';
import { readActivityLogConfig, type ConfigProblems } from '@cotizaciones/runtime';

const problems: ConfigProblems = new Map();
const config = readActivityLogConfig(process.env, problems);
const url = config.activityLogUrl;
const table = config.activityLogTable;
const file = process.argv[2] || config.activityLogDeadLetter;

/** `text` with the URL's password taken out: driver messages are printed, the password never is. */
function withoutSecrets(text: string): string {
  const password = URL.canParse(url) ? new URL(url).password : '';
  if (password === '') return text;
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // Not percent-encoded as it should be: only the raw form can appear.
  }
  return [password, decoded].reduce((clean, secret) => clean.replaceAll(secret, '***'), text);
}

async function main(): Promise<number> {
  if (problems.size > 0) {
    process.stderr.write([...problems.values()].map((line) => `activity:replay: configuration error: ${line}\n`).join(''));
    return 1;
  }
  const engine = sqlEngineOf(url);
  if (engine === undefined) {
    process.stderr.write('activity:replay: ACTIVITY_LOG_URL must be sqlite:<file>, postgres://… or mysql://…\n');
    return 1;
  }
  const store = await openSqlActivityLogStore(url, { table });
  const interrupted = new AbortController();
  const stop = () => interrupted.abort();
  process.once('SIGINT', stop).once('SIGTERM', stop);
  try {
    const result = await replayDeadLetterFile(file, store, { signal: interrupted.signal });
    process.stdout.write(
      `activity:replay: ${file} → ${engine} table ${table}: ${result.written} written, ${result.stillRefused} still refused, ` +
        `${result.unreadable} unreadable, ${result.notTried} not tried\n`,
    );
    if (result.stoppedBy) process.stdout.write(`activity:replay: stopped early: ${withoutSecrets(result.stoppedBy)}\n`);
    return result.stillRefused + result.unreadable + result.notTried === 0 ? 0 : 1;
  } finally {
    await store.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`activity:replay failed: ${withoutSecrets(error instanceof Error ? error.message : String(error))}\n`);
    process.exit(1);
  },
);
