import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { SPOOL_MAX_BYTES, isActivityLogUrl } from '@cotizaciones/adapters';
import type { ConfigProblems } from './config-problems.js';
import { integer, readVariables, reporter, type Environment } from './read-env.js';

const ActivityLogEnv = z.object({
  ACTIVITY_LOG_URL: z
    .string()
    .default('sqlite:./data/activity.db')
    .refine(isActivityLogUrl, 'must be sqlite:<file>, postgres://…, mysql://… or memory:'),
  ACTIVITY_LOG_TABLE: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/)
    .default('activity_log')
    .describe('a plain SQL table name (letters, digits, _; up to 63)'),
  ACTIVITY_LOG_QUEUE_MAX: integer(1, 10_000_000, 10_000),
  ACTIVITY_LOG_DEAD_LETTER: z.string().default('./data/activity-dead-letter.jsonl').describe('a file path'),
  ACTIVITY_LOG_DEAD_LETTER_MAX_BYTES: integer(64 * 1024, 2 ** 40, 64 * 1024 * 1024),
  ACTIVITY_LOG_SPOOL: z.string().default('./data/activity-spool').describe('a folder path'),
  ACTIVITY_LOG_SPOOL_MAX_BYTES: integer(0, 2 ** 40, SPOOL_MAX_BYTES),
});

export interface ActivityLogConfig {
  readonly activityLogUrl: string;
  readonly activityLogTable: string;
  readonly activityLogQueueMax: number;
  /** The JSON-lines file where entries the store refuses are set aside. */
  readonly activityLogDeadLetter: string;
  /** The dead-letter file's bound: past it, refused entries are dropped and counted. */
  readonly activityLogDeadLetterMaxBytes: number;
  /** The folder of the spool every entry is appended to before its answer is sent. */
  readonly activityLogSpool: string;
  /** The spool's bound: past it, entries are held in memory only (counted, logged once a minute). */
  readonly activityLogSpoolMaxBytes: number;
  /** The default data folder, when a file the service writes is in it: created when the log is opened. */
  readonly dataFolder: string | undefined;
}

/** Where the default SQLite log, dead-letter file and spool live; the only folder a channel creates (besides the spool's own). */
const DATA_FOLDER = './data';
const isDataFolder = (folder: string) => resolve(folder) === resolve(DATA_FOLDER);

/** ACTIVITY_LOG_*: every bad variable becomes a line in `problems`. */
export function readActivityLogConfig(env: Environment, problems: ConfigProblems): ActivityLogConfig {
  const e = readVariables(ActivityLogEnv, env, problems);
  const report = reporter(problems);
  // Files the log writes: their folder must exist, except the default ./data, which is created.
  const sqliteFile = e.ACTIVITY_LOG_URL.startsWith('sqlite:') ? e.ACTIVITY_LOG_URL.slice('sqlite:'.length) : undefined;
  // The spool's folder itself is created; the folder it is in must exist, as for a file.
  const files = [
    ['ACTIVITY_LOG_URL', sqliteFile],
    ['ACTIVITY_LOG_DEAD_LETTER', e.ACTIVITY_LOG_DEAD_LETTER],
    ['ACTIVITY_LOG_SPOOL', e.ACTIVITY_LOG_SPOOL],
  ] as const;
  for (const [variable, file] of files) {
    if (file === undefined || file === ':memory:' || isDataFolder(dirname(file)) || existsSync(dirname(file))) continue;
    report(
      variable,
      `names a file in a folder that does not exist (${dirname(file)}): create the folder first (only ${DATA_FOLDER} is created)`,
    );
  }
  return {
    activityLogUrl: e.ACTIVITY_LOG_URL,
    activityLogTable: e.ACTIVITY_LOG_TABLE,
    activityLogQueueMax: e.ACTIVITY_LOG_QUEUE_MAX,
    activityLogDeadLetter: e.ACTIVITY_LOG_DEAD_LETTER,
    activityLogDeadLetterMaxBytes: e.ACTIVITY_LOG_DEAD_LETTER_MAX_BYTES,
    activityLogSpool: e.ACTIVITY_LOG_SPOOL,
    activityLogSpoolMaxBytes: e.ACTIVITY_LOG_SPOOL_MAX_BYTES,
    dataFolder: [sqliteFile, e.ACTIVITY_LOG_DEAD_LETTER, e.ACTIVITY_LOG_SPOOL].some(
      (file) => file !== undefined && isDataFolder(dirname(file)),
    )
      ? DATA_FOLDER
      : undefined,
  };
}
