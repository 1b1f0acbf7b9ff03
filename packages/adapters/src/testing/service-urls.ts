/**
 * Connection URLs of the real services the suites run against; unset ones are skipped (or fail: missing-service.ts). The global
 * set-up (test-environment.ts) fills them in from the default local ports and names the missing ones.
 */
export interface ServiceUrls {
  readonly postgres: string | undefined;
  readonly mysql: string | undefined;
  readonly redis: string | undefined;
}

export function serviceUrls(env: NodeJS.ProcessEnv = process.env): ServiceUrls {
  return {
    postgres: env.TEST_POSTGRES_URL || undefined,
    mysql: env.TEST_MYSQL_URL || undefined,
    redis: env.TEST_REDIS_URL || undefined,
  };
}
