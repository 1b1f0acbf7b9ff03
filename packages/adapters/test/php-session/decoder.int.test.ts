import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILD_FACTOR, decodePhpSession, isPhpObject, SESSION_FORMATS, type PhpValue } from '../../src/php-session.js';
import { phpFixtures } from '../../src/testing/php-server.js';
import { testSeed } from '../../src/testing/test-seed.js';
import { missingPhp } from '../../src/testing/index.js';

type Canon =
  | null
  | boolean
  | { i: string }
  | { d: string }
  | { s: string }
  | { a: [Canon, Canon][] }
  | { o: string; p: [Canon, Canon][] }
  | { e: string };
interface GeneratedLine {
  n: number;
  php: { data: string; canon: Canon };
  php_binary: { data: string; canon: Canon };
  php_serialize: { data: string; canon: Canon };
  igbinary: { data: string; canon: Canon };
}

const SESSIONS_PER_RUN = 300;
/** Sessions of a few strings and values repeated many times (`generate-sessions.php … repetitive`). */
const REPETITIVE_PER_RUN = 60;
let valuesCompared = 0;

describe.skipIf(missingPhp('igbinary'))('PHP session decoder against PHP itself', () => {
  const seed = testSeed();
  const sets = {
    varied: { count: SESSIONS_PER_RUN, lines: [] as GeneratedLine[], stderr: '' },
    repetitive: { count: REPETITIVE_PER_RUN, lines: [] as GeneratedLine[], stderr: '' },
  };
  // In a hook, not the describe body: that body runs even when the suite is skipped for lack of PHP.
  beforeAll(() => {
    for (const [kind, set] of Object.entries(sets)) {
      const generated = spawnSync(
        'php',
        [`${phpFixtures}generate-sessions.php`, String(seed), String(set.count), ...(kind === 'repetitive' ? ['repetitive'] : [])],
        { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
      );
      set.stderr = generated.stderr;
      set.lines = generated.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as GeneratedLine);
    }
  });

  for (const [kind, set] of Object.entries(sets)) {
    it(`PHP generated ${set.count} ${kind} sessions (seed ${seed})`, () => {
      expect(set.stderr).toBe('');
      expect(set.lines).toHaveLength(set.count);
    });

    for (const format of SESSION_FORMATS) {
      it(`decodes every ${kind} ${format} session exactly as PHP's session_decode did, within its build budget (seed ${seed}; rerun with TEST_SEED=${seed})`, () => {
        let compared = 0;
        let mostBuilt = 0;
        valuesCompared = 0;
        for (const line of set.lines) {
          const { data, canon } = line[format];
          const bytes = Buffer.from(data, 'base64');
          const decoded = decodePhpSession(bytes, format);
          const mismatch = differ(canon, sessionAsArray(decoded.vars), `session ${line.n}`);
          expect(mismatch, `seed ${seed}, ${format}`).toBeUndefined();
          // What the reader built, by its own count: within BUILD_FACTOR × the data (or it would have refused it).
          const built = Math.max(decoded.built.values, decoded.built.bytes) / bytes.length;
          expect(built, `seed ${seed}, ${format}, session ${line.n}`).toBeLessThanOrEqual(BUILD_FACTOR);
          mostBuilt = Math.max(mostBuilt, built);
          // Each key built alone, every other value stepped over (as the service reads a session): the same value.
          expect(decodePhpSession(bytes, format, undefined, new Set()).vars.size).toBe(0);
          for (const [key, value] of (canon as { a: [Canon, Canon][] }).a) {
            const name =
              's' in (key as object)
                ? new TextDecoder('utf-8', { ignoreBOM: true }).decode(Buffer.from((key as { s: string }).s, 'hex'))
                : (key as { i: string }).i;
            const alone = decodePhpSession(bytes, format, undefined, new Set([name])).vars;
            expect(differ(value, alone.get(name) ?? null, `session ${line.n}, ${name} alone`), `seed ${seed}, ${format}`).toBeUndefined();
          }
          compared += 1;
        }
        expect(compared).toBe(set.count);
        console.log(
          `[php decoder] ${kind} ${format}: ${compared} sessions, ${valuesCompared} values and keys equal to PHP's, at most ${mostBuilt.toFixed(2)} built per byte (seed ${seed})`,
        );
      });
    }
  }
});

function sessionAsArray(vars: Map<string, PhpValue>): PhpValue {
  return new Map(vars);
}

/** Where `value` differs from PHP's canonical view, or undefined. Ints and floats are both JS numbers: compared by value, exactly. */
function differ(expected: Canon, value: PhpValue, path: string): string | undefined {
  valuesCompared += 1;
  const fail = (what: string) => `${path}: expected ${JSON.stringify(expected)}, got ${what}`;
  if (expected === null || typeof expected === 'boolean') return value === expected ? undefined : fail(typeof value);
  if ('i' in expected) {
    if (typeof value === 'bigint' || (typeof value === 'number' && Number.isSafeInteger(value) && !Object.is(value, -0))) {
      return String(value) === expected.i ? undefined : fail(String(value));
    }
    return fail(typeof value);
  }
  if ('d' in expected) {
    if (typeof value !== 'number') return fail(typeof value);
    if (expected.d === 'NAN') return Number.isNaN(value) ? undefined : fail(String(value));
    const bits = Buffer.alloc(8);
    bits.writeDoubleBE(value);
    return bits.toString('hex') === expected.d ? undefined : fail(`${value} (${bits.toString('hex')})`);
  }
  if ('s' in expected) {
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(Buffer.from(expected.s, 'hex'));
    return value === text ? undefined : fail(JSON.stringify(value));
  }
  if ('e' in expected) {
    return typeof value === 'object' &&
      value !== null &&
      !(value instanceof Map) &&
      value.kind === 'enum' &&
      `${value.className}:${value.caseName}` === expected.e
      ? undefined
      : fail('not that enum');
  }
  if ('a' in expected) {
    if (!(value instanceof Map)) return fail('not an array');
    return pairs(expected.a, [...value], path);
  }
  if (!isPhpObject(value) || value.className !== expected.o) return fail('not that object');
  return pairs(expected.p, [...value.properties], path);
}

function pairs(expected: [Canon, Canon][], actual: [PhpValue, PhpValue][], path: string): string | undefined {
  if (expected.length !== actual.length) return `${path}: expected ${expected.length} elements, got ${actual.length}`;
  for (const [index, [key, value]] of expected.entries()) {
    const [actualKey, actualValue] = actual[index] ?? [];
    const keyPath = `${path}[${index}]`;
    const problem = differ(key, actualKey ?? null, `${keyPath} key`) ?? differ(value, actualValue ?? null, keyPath);
    if (problem) return problem;
  }
  return undefined;
}
