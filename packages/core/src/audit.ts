import type { ChangeRequest, UseCaseDeps } from './change-request.js';
import type { Outcome } from './outcome.js';
import type { SessionUser } from './ports/session.js';

export const MODULE = 'Cotizaciones';

export interface AuditEvent {
  readonly eventKey: string;
  readonly description: string;
  readonly entityType: string;
  readonly entityId: bigint;
  readonly details: Readonly<Record<string, unknown>> | null;
}

/**
 * Records the change in the activity log when it succeeded and the id's integer
 * value is positive, and waits until the log has kept it (see {@link ActivityLog.record}).
 * Recording never throws into the caller: a log that fails here is the adapter's to
 * report, and the outcome carries it for the server log.
 */
export function auditChange(
  deps: UseCaseDeps,
  request: ChangeRequest,
  user: SessionUser,
  outcome: Outcome,
  event: AuditEvent,
): Outcome | Promise<Outcome> {
  if (outcome.kind !== 'ok' || event.entityId <= 0n) return outcome;
  try {
    const kept = deps.activityLog.record({
      ...event,
      createdAt: deps.now?.() ?? new Date(),
      module: MODULE,
      userId: user.id,
      requestId: request.meta?.requestId,
      clientIp: request.meta?.clientIp,
      userAgent: request.meta?.userAgent,
    });
    return kept
      ? kept.then(
          () => outcome,
          (error: unknown) => withCause(outcome, error),
        )
      : outcome;
  } catch (error) {
    return withCause(outcome, error);
  }
}

const withCause = (outcome: Outcome, error: unknown): Outcome => ({
  ...outcome,
  cause: error instanceof Error ? error : new Error(String(error)),
});
