import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BUILD_FACTOR, decodePhpSession } from '../../src/php-session.js';
import { encodeInt } from '../../src/php-session/session-formats.js';
import { toPlain } from '../../src/php-session/to-plain.js';
import { missingPhp } from '../../src/testing/index.js';

// PHP's own igbinary_serialize as the reference (igbinary.test.ts: the decoder, in-process).
describe.skipIf(missingPhp('igbinary'))('igbinary encoder: the activity time as PHP writes it', () => {
  it("writes each int byte for byte as PHP's igbinary_serialize does", () => {
    const ints = [0, 1, -1, 255, 256, -255, -256, 65535, 65536, -65536, 1763776800, 4294967295, 4294967296, -4294967296, 2 ** 53 - 1];
    const php = spawnSync('php', ['-r', `foreach ([${ints.join(',')}] as $n) echo bin2hex(substr(igbinary_serialize($n), 4)), "\\n";`], {
      encoding: 'utf8',
    });
    expect(php.stderr).toBe('');
    expect(ints.map((n) => Buffer.from(encodeInt(n, 'igbinary')).toString('hex'))).toEqual(php.stdout.trim().split('\n'));
  });
});

// The sessions of a review: one 50 KB string repeated, which php-igbinary writes once and then names by
// its string-table index (or, for a PHP reference, by a back-reference to its `&` slot).
describe.skipIf(missingPhp('igbinary'))('igbinary decoder: one 50 KB string repeated, as PHP writes it', () => {
  const cases = [
    { copies: 20_000, shared: 'copies' },
    { copies: 99_990, shared: 'copies' },
    { copies: 20_000, shared: 'references' },
  ] as const;
  for (const { copies, shared } of cases) {
    it(`reads ${copies} ${shared} of it with the string built once, within the build budget`, () => {
      const session =
        shared === 'copies'
          ? `$v = ['user' => ['id' => 7, 'name' => 'Ana', 'tags' => array_fill(0, ${copies}, $s)], 'LAST_ACTIVITY' => 1763776800];`
          : `$v = ['big' => &$s, 'user' => ['id' => 7, 'name' => 'Ana', 'tags' => []], 'LAST_ACTIVITY' => 1763776800];
             for ($i = 0; $i < ${copies}; $i++) $v['user']['tags'][] = &$s;`;
      // igbinary's session serializer writes what igbinary_serialize writes for the session's array.
      const php = spawnSync('php', ['-r', `$s = str_repeat('x', 50000); ${session} echo igbinary_serialize($v);`], {
        maxBuffer: 8 * 1024 * 1024,
      });
      expect(php.stderr.toString()).toBe('');
      const data = php.stdout;
      expect(data.length).toBeLessThan(1024 * 1024);
      const decoded = decodePhpSession(data, 'igbinary', undefined, new Set(['user', 'LAST_ACTIVITY']));
      const user = toPlain(decoded.vars.get('user')!) as { id: number; name: string; tags: Record<string, string> };
      expect([user.id, user.name, Object.keys(user.tags).length]).toEqual([7, 'Ana', copies]);
      expect(user.tags[0]).toBe('x'.repeat(50_000));
      expect(user.tags[copies - 1]).toBe(user.tags[0]);
      expect(decoded.vars.get('LAST_ACTIVITY')).toBe(1763776800);
      // Counted by the reader: the string once (and the keys' names); per use one value, or two where PHP
      // writes a reference's every use as `&` and a back-reference.
      expect(decoded.built.bytes).toBeLessThan(50_100);
      expect(decoded.built.values).toBeLessThan((shared === 'copies' ? 1 : 2) * copies + 20);
      expect(Math.max(decoded.built.values, decoded.built.bytes)).toBeLessThanOrEqual(BUILD_FACTOR * data.length);
    });
  }
});
