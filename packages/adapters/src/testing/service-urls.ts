/** Connection URLs of the real services the adapter suites run against; unset ones are skipped. */
export interface ServiceUrls {
  readonly postgres: string | undefined;
  readonly mysql: string | undefined;
  readonly redis: string | undefined;
}

export function serviceUrls(env: NodeJS.ProcessEnv = process.env): ServiceUrls {
  const urls = {
    postgres: env.TEST_POSTGRES_URL || undefined,
    mysql: env.TEST_MYSQL_URL || undefined,
    redis: env.TEST_REDIS_URL || undefined,
  };
  const missing = Object.entries(urls).filter(([, url]) => !url).map(([name]) => `TEST_${name.toUpperCase()}_URL`);
  if (missing.length > 0) {
    console.warn(`\n[adapter suites] SKIPPING real-service tests: ${missing.join(', ')} not set (.ci/run sets them)\n`);
  }
  return urls;
}
