import {
  OPERATIONS,
  PortFailure,
  useCases,
  type Operation,
  type Session,
  type UseCaseDeps,
  type UpstreamRequest,
} from '@cotizaciones/core';
import { errorSummary } from '@cotizaciones/runtime';
import type { ChangeLine } from './change-line.js';
import { lineRequestId } from './line-identity.js';
import { lineOutcome, type LineResult } from './line-result.js';

export interface RunIdentity {
  /** The user every change is made and audited as (`--as`). */
  readonly userId: string;
  /**
   * Names the run in each change's idempotency key and its audit row's request id, with the line's
   * identity (line-identity.ts). Kept in the journal, so a rerun re-sends a line with the same key.
   */
  readonly runId: string;
  /** The audit rows' user agent: the tool and its version. */
  readonly userAgent: string;
}

/**
 * Each line through the same use case as its web endpoint: same payload rules, replies and audit entries.
 * `operations`: the core's catalog unless a test runs another.
 */
export function lineRunner(
  deps: UseCaseDeps,
  identity: RunIdentity,
  operations: readonly Operation[] = OPERATIONS,
): (line: ChangeLine) => Promise<LineResult> {
  const byName = useCases(deps, operations);
  const byLineName = new Map(operations.map((operation) => [operation.lineName, byName.get(operation.name)]));
  const session = signedIn(identity.userId);
  return async (line) => {
    const key = lineRequestId(identity.runId, line);
    const meta = { requestId: key, userAgent: identity.userAgent };
    const useCase = byLineName.get(line.operation);
    // Only the catalog's names get past the reader (toInputLine).
    if (!useCase) throw new Error(`no operation is called ${line.operation}`);
    const { reply, kind, cause } = await useCase({ session, params: line.params, idempotencyKey: key, meta });
    // Operations staff need the why (a timeout, a refused token) that the web reply leaves out; causes carry no secret.
    const message = reply.ok ? '' : cause ? `${reply.msg} (${errorSummary(cause).message})` : reply.msg;
    return { line: line.line, outcome: lineOutcome(kind), message, ...(cause instanceof PortFailure ? { code: cause.code } : {}) };
  };
}

/**
 * A dry run: the same use cases on an upstream that only remembers what it was
 * asked to send and an activity log that only notes whether it was given an entry.
 * The result's message is the request the line would send, and what the contract
 * would silently do with it: parameters the payload leaves out, no audit row.
 */
export function dryRunner(identity: RunIdentity): (line: ChangeLine) => Promise<LineResult> {
  return async (line) => {
    let sent: UpstreamRequest | undefined;
    let audited = false;
    const run = lineRunner(
      {
        upstream: { post: (request) => ((sent = request), Promise.resolve({ status: 200, body: { ok: true } })) },
        tokens: { token: () => Promise.resolve('') },
        activityLog: { record: () => void (audited = true), flush: () => Promise.resolve() },
      },
      identity,
    );
    const result = await run(line);
    if (!sent) return result;
    const payload = sent.payload;
    const dropped = [...line.params.keys()].filter((name) => !(name in payload));
    const warnings = [
      ...(dropped.length ? [`${dropped.join(', ')} not sent with these parameters`] : []),
      ...(audited ? [] : [`no audit row: id ${JSON.stringify(line.params.get('id'))} is not a positive integer`]),
    ];
    return {
      line: line.line,
      outcome: 'dry-run',
      message: [`POST ${sent.path} ${JSON.stringify(payload)}`, ...warnings.map((w) => `warning: ${w}`)].join('; '),
    };
  };
}

function signedIn(userId: string): Session {
  const user = Object.freeze({ id: userId });
  return { currentUser: () => Promise.resolve(user) };
}
