/** What a load run takes and gives back, closed loop (load.ts) or paced (paced-load.ts). */
export interface LoadOptions {
  readonly url: string;
  readonly cookies: readonly string[];
  readonly connections: number;
  readonly durationS: number;
  /** Requests per second for the whole run, sent evenly (paced-load.ts); unset: as fast as the target answers (autocannon). */
  readonly overallRate?: number | undefined;
  /** Seconds an answer may take before it counts as a timeout (autocannon's default: 10). */
  readonly timeoutS?: number | undefined;
  /** The body every answer must have (default `{"ok":true}`: signed-in requests). */
  readonly expectedBody?: string | undefined;
}

export interface LoadResult {
  readonly requests: number;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
  /** The slowest answer (ms): with every connection opened at once, what the last one accepted waited. */
  readonly max: number;
  readonly errors: number;
  readonly non2xx: number;
  /** Responses whose body was not exactly the expected one ({"ok":true} unless told). */
  readonly wrongBodies: number;
  /** At a fixed rate: how late the driver itself sent a request, ms at most (its own delay would pass for the service's). */
  readonly sendLagMax?: number;
  /** At a fixed rate: every answer's latency, ms, ascending (rounds at one rate can be pooled). */
  readonly latencies?: Float64Array;
}
