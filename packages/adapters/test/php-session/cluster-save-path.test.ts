import { describe, expect, it } from 'vitest';
import { parseRedisClusterSavePath } from '../../src/php-session/save-path.js';

describe("phpredis's cluster session save path, read as phpredis reads it", () => {
  it("takes the seeds, the prefix (default PHPREDIS_CLUSTER_SESSION:) and accepts what only tunes PHP's own connections", () => {
    expect(
      parseRedisClusterSavePath('seed[]=10.0.0.1:7000&seed[]=redis-b:7001&timeout=2&read_timeout=2.5&failover=Distribute&persistent=1'),
    ).toEqual({
      seeds: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'redis-b', port: 7001 },
      ],
      prefix: 'PHPREDIS_CLUSTER_SESSION:',
    });
    expect(parseRedisClusterSavePath('seed[]=[::1]:7000&prefix=app%3Asess+1:').seeds).toEqual([{ host: '::1', port: 7000 }]);
    expect(parseRedisClusterSavePath('seed[]=a:1&prefix=app%3Asess+1:').prefix).toBe('app:sess 1:');
    // PHP's parser: the last of a name wins; numbered or named list entries are a list all the same.
    expect(parseRedisClusterSavePath('seed[0]=a:1&seed[x]=b:2&prefix=one&prefix=two')).toMatchObject({
      seeds: [
        { host: 'a', port: 1 },
        { host: 'b', port: 2 },
      ],
      prefix: 'two',
    });
  });

  it('reads auth as a password, auth[] as one password or a user and a password (by position or by name)', () => {
    expect(parseRedisClusterSavePath('seed[]=a:1&auth=pa%26ss+word')).toMatchObject({ password: 'pa&ss word' });
    expect(parseRedisClusterSavePath('seed[]=a:1&auth[]=only')).toMatchObject({ password: 'only' });
    expect(parseRedisClusterSavePath('seed[]=a:1&auth[]=app&auth[]=s3cret')).toMatchObject({ username: 'app', password: 's3cret' });
    expect(parseRedisClusterSavePath('seed[]=a:1&auth[pass]=s3cret&auth[user]=app')).toMatchObject({ username: 'app', password: 's3cret' });
  });

  it('refuses what phpredis would skip or misread, and what the service cannot do, never quoting the password', () => {
    const refusal = (path: string) => {
      try {
        parseRedisClusterSavePath(path);
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error(`accepted ${path}`);
    };
    expect(refusal('tcp://a:6379')).toMatch(/^expected phpredis's cluster form: seed\[\]=host:port/);
    expect(refusal('seed=a:7000')).toMatch(/^expected phpredis's cluster form/);
    expect(refusal('seed[]=a&auth=s3cret')).toBe('the seed "a" is not host:port');
    expect(refusal('seed[]=a:70000')).toBe('the seed "a:70000" is not host:port');
    expect(refusal('seed[]=tls://a:7000')).toMatch(/names a scheme/);
    expect(refusal('seed[]=a:1&timeout=-1')).toBe('timeout must be a number of seconds, 0 or more');
    expect(refusal('seed[]=a:1&failover=sometimes')).toBe('failover must be none, error or distribute');
    expect(refusal('seed[]=a:1&database=2')).toMatch(/only database 0/);
    expect(refusal('seed[]=a:1&stream[verify_peer]=0')).toMatch(/TLS/);
    expect(refusal('seed[]=a:1&auth[]=a&auth[]=b&auth[]=s3cret')).toBe('auth[] takes a password or a user and a password');
    expect(refusal('seed[]=a:1&auth=s3cret&compression=lzf')).toBe('the parameter "compression" is not supported');
  });
});
