import { parseArgs } from 'node:util';

export interface BenchOptions {
  readonly durationS: number;
  readonly warmupS: number;
  readonly rounds: number;
  readonly connections: number;
  readonly delays: readonly number[];
  readonly users: number;
  readonly peakConnections: number;
  readonly soak: boolean;
  readonly soakS: number;
  readonly writerEntries: number;
  /** PHP session latency: adapter reads per mode, and whole-request rounds (0 and 0: skipped). */
  readonly phpReads: number;
  readonly phpRounds: number;
  /** Fair share: the newcomer's probes per scenario (0: skipped). */
  readonly fairProbes: number;
  /** The bulk CLI: lines per run, one run per round (0: skipped). */
  readonly cliLines: number;
  /** The spool's tail at a fixed rate: interleaved rounds of spool on and off (0: skipped), their seconds, the rate's share of the closed-loop one. */
  readonly spoolTailRounds: number;
  readonly spoolTailS: number;
  readonly spoolTailRate: number;
  /** Only the spool's tail comparison (at `delays`): a run of a few minutes. */
  readonly spoolTailOnly: boolean;
  /** Preload the tail probe into that comparison's services (event-loop stalls, GC pauses, spool writes, fdatasyncs). */
  readonly spoolTailProbe: boolean;
  readonly out: string;
  /** Node/V8 flags of the service's and the references' processes, split on spaces. */
  readonly nodeArgs: readonly string[];
  /** Another build's main.js, measured beside the service with the same clients (A/B of a change). */
  readonly candidateMain: string | undefined;
  /** Node/V8 flags for the candidate (unset: `nodeArgs`); with no --candidate, the candidate is this build with these flags. */
  readonly candidateNodeArgs: readonly string[] | undefined;
  readonly redisUrl: string | undefined;
  readonly postgresUrl: string | undefined;
}

const HELP = `pnpm bench [options]
  --duration S         seconds per measured round (5)
  --warmup S           seconds of warm-up per target (3)
  --rounds N           interleaved rounds; medians are reported (3)
  --connections N      concurrent connections (64)
  --delays A,B         upstream delays in ms, one pass each (0,20); "" for none (peak memory only)
  --users N            distinct signed-in sessions (256)
  --peak-connections N connections of the peak-memory run (256)
  --soak               add a soak run at half the peak rate
  --soak-seconds S     length of the soak (300)
  --writer-entries N   entries of the activity-log writer micro-benchmark (50000)
  --php-reads N        SESSION_STORE=php: adapter reads of a PHP-written session per mode (5000; needs php, redis-server)
  --php-rounds N       SESSION_STORE=php: interleaved rounds of whole requests per session mode (400)
  --fair-probes N      fair share: a newcomer's requests beside ordinary and pipelining clients, per scenario (200)
  --cli-lines N        the bulk CLI: lines applied per round, --concurrency 16, 20 ms upstream (4000)
  --spool-tail-rounds N  the spool's tail: rounds of spool on, off and an identical spool-off twin at one fixed rate, at each delay (6; 0: skipped)
  --spool-tail-seconds S seconds per round of that comparison (10)
  --spool-tail-rate R  each side's fixed rate, a share of the spool-off closed-loop rate measured just before; the three sides run at once (0.15)
  --spool-tail-only    only that comparison (with --delays, --connections, --users, --warmup, --node-args)
  --spool-tail-probe   and preload apps/bench's tail-probe into its services: their event-loop stalls, GC pauses, spool writes and fdatasyncs
  --out DIR            where the Markdown and JSON reports go (bench-results)
  --node-args="FLAGS"  Node/V8 flags of the service and the references (default: npm start's --heap-growing-percent=50 --max-semi-space-size=8)
  --candidate FILE     another build's main.js, measured beside the service in the same rounds (an A/B)
  --candidate-node-args="FLAGS"  Node/V8 flags for the candidate (default: --node-args; alone: this build with these flags)
Real services (optional): TEST_REDIS_URL and TEST_POSTGRES_URL add the Redis + PostgreSQL targets.`;

export function readOptions(argv: string[], env: NodeJS.ProcessEnv): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string', default: '5' },
      warmup: { type: 'string', default: '3' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '64' },
      delays: { type: 'string', default: '0,20' },
      users: { type: 'string', default: '256' },
      'peak-connections': { type: 'string', default: '256' },
      soak: { type: 'boolean', default: false },
      'soak-seconds': { type: 'string', default: '300' },
      'writer-entries': { type: 'string', default: '50000' },
      'php-reads': { type: 'string', default: '5000' },
      'php-rounds': { type: 'string', default: '400' },
      'fair-probes': { type: 'string', default: '200' },
      'cli-lines': { type: 'string', default: '4000' },
      'spool-tail-rounds': { type: 'string', default: '6' },
      'spool-tail-seconds': { type: 'string', default: '10' },
      'spool-tail-rate': { type: 'string', default: '0.15' },
      'spool-tail-only': { type: 'boolean', default: false },
      'spool-tail-probe': { type: 'boolean', default: false },
      out: { type: 'string', default: 'bench-results' },
      // As `npm start` and the Dockerfile start the service.
      'node-args': { type: 'string', default: '--heap-growing-percent=50 --max-semi-space-size=8' },
      candidate: { type: 'string' },
      'candidate-node-args': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    process.exit(0);
  }
  const int = (name: string, value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, got ${value}`);
    return n;
  };
  const share = (name: string, value: string) => {
    const n = Number(value);
    if (!(n > 0 && n <= 1)) throw new Error(`--${name} must be above 0 and at most 1, got ${value}`);
    return n;
  };
  return {
    durationS: int('duration', values.duration),
    warmupS: int('warmup', values.warmup),
    rounds: int('rounds', values.rounds),
    connections: int('connections', values.connections),
    delays: values.delays
      .split(',')
      .filter(Boolean)
      .map((d) => int('delays', d)),
    users: int('users', values.users),
    peakConnections: int('peak-connections', values['peak-connections']),
    soak: values.soak,
    soakS: int('soak-seconds', values['soak-seconds']),
    writerEntries: int('writer-entries', values['writer-entries']),
    phpReads: int('php-reads', values['php-reads']),
    phpRounds: int('php-rounds', values['php-rounds']),
    fairProbes: int('fair-probes', values['fair-probes']),
    cliLines: int('cli-lines', values['cli-lines']),
    spoolTailRounds: int('spool-tail-rounds', values['spool-tail-rounds']),
    spoolTailS: int('spool-tail-seconds', values['spool-tail-seconds']),
    spoolTailRate: share('spool-tail-rate', values['spool-tail-rate']),
    spoolTailOnly: values['spool-tail-only'],
    spoolTailProbe: values['spool-tail-probe'],
    out: values.out,
    nodeArgs: values['node-args'].split(' ').filter(Boolean),
    candidateMain: values.candidate,
    candidateNodeArgs: values['candidate-node-args']?.split(' ').filter(Boolean),
    redisUrl: env.TEST_REDIS_URL || undefined,
    postgresUrl: env.TEST_POSTGRES_URL || undefined,
  };
}
