import { execFileSync, spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface RepeatedSessionRow {
  readonly bytes: number;
  /** How many times `$_SESSION['user']['tags']` repeats the one 50 KB string. */
  readonly copies: number;
  /** CPU ms of PHP's own igbinary_unserialize of the same bytes (median of 7 samples). */
  readonly phpMs: number;
  /** The service's decode: the first one (cold), and the median of the next ones; undefined if it failed. */
  readonly firstMs: number | undefined;
  readonly medianMs: number | undefined;
  /** Heap and RSS grown by one decode (what it built and its garbage), and the RSS growth over all decodes. */
  readonly heapMb: number | undefined;
  readonly rssGrowthMb: number | undefined;
  readonly rssAllMb: number | undefined;
  /** Why there are no figures: the child ran out of heap or time. */
  readonly failure?: string;
}

const CHILD = fileURLToPath(new URL('./repeated-session-decode.js', import.meta.url));
export const REPEATED_READS = 50;
/** Far above what a decode within its budget needs: a decoder that amplifies dies here, not the bench. */
const CHILD_HEAP_MB = 512;
const CHILD_TIMEOUT_MS = 60_000;

/**
 * Sessions a decoder that built each use anew would turn into 1 GB (150 KB) or heap exhaustion (600 KB):
 * one 50 KB string repeated in the user (php-igbinary writes it once, then 2-byte string-table indexes).
 * Each is decoded in a child process of its own with a heap cap and a timeout; PHP's own decode beside it.
 */
export async function benchRepeatedSessions(scratch: string, log: (line: string) => void): Promise<RepeatedSessionRow[]> {
  log('PHP sessions: igbinary sessions repeating one 50 KB string (150 and 600 KB), each decode in a child process');
  const rows: RepeatedSessionRow[] = [];
  for (const copies of [20_000, 99_990]) {
    const file = join(scratch, `repeated-${copies}.igbinary`);
    const data = execFileSync(
      'php',
      [
        '-r',
        `$s = str_repeat('x', 50000); echo igbinary_serialize(['user' => ['id' => 7, 'name' => 'Ana', 'tags' => array_fill(0, ${copies}, $s)], 'LAST_ACTIVITY' => 1763776800]);`,
      ],
      { maxBuffer: 8 * 1024 * 1024 },
    );
    await writeFile(file, data);
    const phpMs = Number(execFileSync('php', ['-r', PHP_DECODE_MS, file], { encoding: 'utf8' }).trim());
    const child = spawnSync(
      process.execPath,
      ['--expose-gc', `--max-old-space-size=${CHILD_HEAP_MB}`, CHILD, file, String(REPEATED_READS)],
      {
        encoding: 'utf8',
        timeout: CHILD_TIMEOUT_MS,
      },
    );
    if (child.status === 0) {
      const figures = JSON.parse(child.stdout) as Pick<RepeatedSessionRow, 'firstMs' | 'medianMs' | 'heapMb' | 'rssGrowthMb' | 'rssAllMb'>;
      rows.push({ bytes: data.length, copies, phpMs, ...figures });
    } else {
      const failure = child.error
        ? `no answer in ${CHILD_TIMEOUT_MS} ms`
        : `died (${child.signal ?? `exit ${child.status}`}; heap cap ${CHILD_HEAP_MB} MB)`;
      rows.push({
        bytes: data.length,
        copies,
        phpMs,
        firstMs: undefined,
        medianMs: undefined,
        heapMb: undefined,
        rssGrowthMb: undefined,
        rssAllMb: undefined,
        failure,
      });
    }
  }
  return rows;
}

// CPU ms of one igbinary_unserialize of argv[1], median of 7 samples of 20 decodes each.
const PHP_DECODE_MS = `
$d = file_get_contents($argv[1]);
$cpu = function () { $r = getrusage(); return $r['ru_utime.tv_sec'] * 1e6 + $r['ru_utime.tv_usec'] + $r['ru_stime.tv_sec'] * 1e6 + $r['ru_stime.tv_usec']; };
$samples = [];
for ($s = 0; $s < 7; $s++) { $t = $cpu(); for ($i = 0; $i < 20; $i++) igbinary_unserialize($d); $samples[] = ($cpu() - $t) / 20 / 1000; }
sort($samples);
echo $samples[3];
`;

/**
 * The targets: a decode under 50 ms (the median: the first, in a fresh process, also compiles the
 * decoder) and 20 MB (the heap and RSS one decode grew).
 */
export const REPEATED_MAX_MS = 50;
export const REPEATED_MAX_MB = 20;

export function repeatedMet(row: RepeatedSessionRow): boolean {
  return (
    row.medianMs !== undefined && row.medianMs <= REPEATED_MAX_MS && row.heapMb! <= REPEATED_MAX_MB && row.rssGrowthMb! <= REPEATED_MAX_MB
  );
}
