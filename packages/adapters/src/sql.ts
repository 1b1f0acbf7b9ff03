export { openSqlActivityLogStore, type SqlActivityLogStore } from './activity-log/sql-activity-log-store.js';
