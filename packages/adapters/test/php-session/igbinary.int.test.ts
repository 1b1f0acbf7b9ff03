import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { encodeInt } from '../../src/php-session/session-formats.js';

// PHP's own igbinary_serialize as the reference (igbinary.test.ts: the decoder, in-process).
describe('igbinary encoder: the activity time as PHP writes it', () => {
  it("writes each int byte for byte as PHP's igbinary_serialize does", () => {
    const ints = [0, 1, -1, 255, 256, -255, -256, 65535, 65536, -65536, 1763776800, 4294967295, 4294967296, -4294967296, 2 ** 53 - 1];
    const php = spawnSync('php', ['-r', `foreach ([${ints.join(',')}] as $n) echo bin2hex(substr(igbinary_serialize($n), 4)), "\\n";`], {
      encoding: 'utf8',
    });
    expect(php.stderr).toBe('');
    expect(ints.map((n) => Buffer.from(encodeInt(n, 'igbinary')).toString('hex'))).toEqual(php.stdout.trim().split('\n'));
  });
});
