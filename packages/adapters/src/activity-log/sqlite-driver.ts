import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);
const nodeMajor = Number(process.versions.node.split('.')[0]);

/**
 * better-sqlite3, in the version this Node can run safely. 12.x wraps its objects with
 * `node::ObjectWrap`, and Node 24 aborts the process (`Assertion failed: (env) != nullptr`)
 * when such a statement is collected after its thread's environment is gone — as at the end of
 * the activity log's worker. 13.x (Node-API, prebuilt) does not, but needs Node 22. Node 20 keeps
 * 12.x until its support is dropped; then this file and the alias go.
 */
export const SQLite: typeof BetterSqlite3 = require(nodeMajor >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3') as typeof BetterSqlite3;
