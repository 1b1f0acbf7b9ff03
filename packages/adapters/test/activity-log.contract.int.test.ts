import { describe } from 'vitest';
import { missing, serviceUrls } from '../src/testing/index.js';
import { testSqlActivityLogStore } from './support/sql-activity-log-suite.js';

// The activity-log contract against the real databases; activity-log.contract.test.ts runs it in-process.
const urls = serviceUrls();

for (const [name, target] of [
  ['PostgreSQL', urls.postgres],
  ['MySQL/MariaDB', urls.mysql],
] as const) {
  describe.skipIf(missing(name, target))(`${name} (needs the database)`, () => testSqlActivityLogStore(name, target ?? ''));
}
