import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Finding, Readiness } from '@cotizaciones/runtime';
import type { MetricsAccess } from '../config.js';
import { writeJson } from './answers.js';
import { bearerMatcher } from './bearer-guard.js';

/** A probe's answer. */
export interface ProbeAnswer {
  readonly status: number;
  /** JSON text. */
  readonly body: string;
}

/** The probes' paths: at the root whatever BASE_PATH is. */
export const PROBE_PATHS = ['/healthz', '/readyz'] as const;
export type ProbePath = (typeof PROBE_PATHS)[number];

const HEALTHY: ProbeAnswer = { status: 200, body: '{"ok":true}' };

/** Whether a probe's `Authorization` header is the metrics token's: its holder sees each finding's detail. */
export type DetailAccess = (authorization: string | undefined) => boolean;

/** Nobody sees the detail. */
export const NO_DETAIL: DetailAccess = () => false;

/**
 * Who sees the detail: the bearers of METRICS_TOKEN, by the same check as `GET /metrics`. Without a
 * token nobody does, also where /metrics is open to anyone (outside production): the server log has it.
 */
export function metricsTokenHolders(metrics: MetricsAccess | undefined): DetailAccess {
  if (typeof metrics !== 'object') return NO_DETAIL;
  const matches = bearerMatcher(metrics.token);
  return (authorization) => authorization !== undefined && matches(authorization);
}

/**
 * `/readyz` from what the last check found: 503 only for what stops the endpoints from answering
 * (`reasons`); what they do without (`degraded`) is named in a 200. Each finding as its summary
 * (the failing part), or with `detailed` in the cause's own words (hosts, ports, driver messages).
 */
function readinessAnswer({ reasons, degraded }: Readiness, detailed: boolean): ProbeAnswer {
  const text = (finding: Finding) => (detailed ? finding.detail : finding.summary);
  const named = degraded.length > 0 ? { degraded: degraded.map(text) } : {};
  return reasons.length > 0
    ? { status: 503, body: JSON.stringify({ ok: false, reasons: reasons.map(text), ...named }) }
    : { status: 200, body: JSON.stringify({ ok: true, ...named }) };
}

/**
 * Each probe path's answer to a caller with that `Authorization` header; `readiness` is read at once
 * (never a wait on a store). The metrics token's holder (`detail`) sees each finding's detail.
 */
export function probeAnswers(
  readiness: () => Readiness,
  detail: DetailAccess,
): (path: ProbePath, authorization: string | undefined) => ProbeAnswer {
  // One finding serves every probe until the next check: serialized once for each audience.
  let finding: Readiness | undefined;
  let anonymous = HEALTHY;
  let detailed = HEALTHY;
  return (path, authorization) => {
    if (path === '/healthz') return HEALTHY;
    const now = readiness();
    if (now !== finding) {
      anonymous = readinessAnswer(now, false);
      detailed = readinessAnswer(now, true);
      finding = now;
    }
    // No header, no hashing: the usual probe costs nothing more.
    return authorization !== undefined && detail(authorization) ? detailed : anonymous;
  };
}

/**
 * Answers `GET /healthz` and `GET /readyz` where the HTTP server receives them, ahead of the
 * fair-share line, and returns true; false for any other request (it takes the line). Cheap
 * whatever a client sends: no body (a request with one takes the line, whose frame closes a
 * connection whose body was not read), no session, no log line, a fixed answer or the last
 * readiness finding.
 */
export function probesAheadOfLine(
  readiness: () => Readiness,
  detail: DetailAccess = NO_DETAIL,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const answer = probeAnswers(readiness, detail);
  return (req, res) => {
    if (req.method !== 'GET' || req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) return false;
    const path = pathOf(req.url ?? '');
    if (!isProbePath(path)) return false;
    const { status, body } = answer(path, req.headers.authorization);
    writeJson(res, status, body);
    return true;
  };
}

const isProbePath = (path: string): path is ProbePath => (PROBE_PATHS as readonly string[]).includes(path);

/** The request target without its query, as the router matches it. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
