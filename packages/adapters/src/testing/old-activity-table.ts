/**
 * The activity table as the service created it before it widened its columns (and, on MySQL, in
 * utf8mb3): an existing deployment's table, for the tests of entries a database refuses.
 */
export function oldActivityTableSql(mysql: boolean, table: string): string {
  const keyAndTime = mysql
    ? 'id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, created_at DATETIME(3) NOT NULL'
    : 'id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, created_at TIMESTAMPTZ NOT NULL';
  return `CREATE TABLE ${table} (${keyAndTime}, module VARCHAR(64) NOT NULL, event_key VARCHAR(128) NOT NULL,
    description TEXT NOT NULL, entity_type VARCHAR(64) NOT NULL, entity_id BIGINT NOT NULL, details TEXT NULL,
    user_id VARCHAR(64) NOT NULL, request_id VARCHAR(128) NULL, client_ip VARCHAR(64) NULL, user_agent TEXT NULL)${mysql ? ' CHARSET=utf8mb3' : ''}`;
}
