import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readiness } from '@cotizaciones/runtime';
import { writeJson } from './answers.js';

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

/**
 * `/readyz` from what the last check found: 503 only for what stops the endpoints from answering
 * (`reasons`); what they do without (`degraded`) is named in a 200.
 */
function readinessAnswer({ reasons, degraded }: Readiness): ProbeAnswer {
  const named = degraded.length > 0 ? { degraded } : {};
  return reasons.length > 0
    ? { status: 503, body: JSON.stringify({ ok: false, reasons, ...named }) }
    : { status: 200, body: JSON.stringify({ ok: true, ...named }) };
}

/** Each probe path's answer; `readiness` is read at once (never a wait on a store). */
export function probeAnswers(readiness: () => Readiness): (path: ProbePath) => ProbeAnswer {
  // One finding serves every probe until the next check: serialized once.
  let finding: Readiness | undefined;
  let ready = HEALTHY;
  return (path) => {
    if (path === '/healthz') return HEALTHY;
    const now = readiness();
    if (now !== finding) {
      ready = readinessAnswer(now);
      finding = now;
    }
    return ready;
  };
}

/**
 * Answers `GET /healthz` and `GET /readyz` where the HTTP server receives them, ahead of the
 * fair-share line, and returns true; false for any other request (it takes the line). Cheap
 * whatever a client sends: no body (a request with one takes the line, whose frame closes a
 * connection whose body was not read), no session, no log line, a fixed answer or the last
 * readiness finding.
 */
export function probesAheadOfLine(readiness: () => Readiness): (req: IncomingMessage, res: ServerResponse) => boolean {
  const answer = probeAnswers(readiness);
  return (req, res) => {
    if (req.method !== 'GET' || req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) return false;
    const path = pathOf(req.url ?? '');
    if (!isProbePath(path)) return false;
    const { status, body } = answer(path);
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
