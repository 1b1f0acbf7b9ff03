import { auditChange, type AuditEvent } from './audit.js';
import type { ChangeRequest, UseCaseDeps } from './change-request.js';
import { readStrings } from './form-params.js';
import { forwardChange } from './forward-change.js';
import type { Outcome } from './outcome.js';
import { phpIntCast } from './php-int.js';
import { MESSAGES, failure } from './reply.js';
import type { UpstreamPayload } from './ports/upstream.js';

/** The parameters a use case reads: each a string, or undefined when absent. */
export type Params<N extends string> = { readonly [K in N]: string | undefined };

/** What distinguishes one change operation from another. */
export interface ChangeSpec<N extends string> {
  /** Every parameter the operation uses; any of them in array form is refused. */
  readonly params: readonly N[];
  readonly path: string;
  readonly defaultMsg: string;
  payload(params: Params<N>): UpstreamPayload;
  audit(params: Params<N>, entityId: bigint): Omit<AuditEvent, 'entityId'>;
}

/**
 * The steps both operations share: session check, parameters, forward to the
 * upstream, reply, and the audit entry keyed by the integer value of `id`.
 */
export function changeUseCase<N extends string>(deps: UseCaseDeps, spec: ChangeSpec<N | 'id'>) {
  return async (request: ChangeRequest): Promise<Outcome> => {
    const user = await request.session.currentUser();
    if (!user) return { reply: failure(MESSAGES.notAuthenticated), kind: 'not-authenticated' };

    const read = readStrings(request.params, spec.params);
    if (!read.ok) return { reply: failure(MESSAGES.invalidParams), kind: 'invalid-params' };

    const outcome = await forwardChange(deps, {
      path: spec.path,
      payload: spec.payload(read.values),
      user,
      defaultMsg: spec.defaultMsg,
    });

    const entityId = phpIntCast(read.values.id ?? '');
    return auditChange(deps, request, user, outcome, { ...spec.audit(read.values, entityId), entityId });
  };
}
