import { auditChange } from './audit.js';
import type { ChangeRequest, UseCaseDeps } from './change-request.js';
import { readStrings } from './form-params.js';
import { forwardChange } from './forward-change.js';
import { paramNames, type Operation } from './operations.js';
import { sessionUnavailable, type Outcome } from './outcome.js';
import { phpIntCast } from './php-int.js';
import { MESSAGES, failure } from './reply.js';

/** A use case: one call of an operation. */
export type UseCase = (request: ChangeRequest) => Promise<Outcome>;

/**
 * The steps every operation shares: session check, parameters, forward to the
 * upstream, reply, and the audit entry keyed by the integer value of `id`.
 */
export function changeUseCase<N extends string>(deps: UseCaseDeps, operation: Operation<N | 'id'>): UseCase {
  const names = paramNames(operation);
  return async (request) => {
    let user;
    try {
      user = await request.session.currentUser();
    } catch (error) {
      return sessionUnavailable(error);
    }
    if (!user) return { reply: failure(MESSAGES.notAuthenticated), kind: 'not-authenticated' };

    const params = typeof request.params === 'function' ? await request.params() : request.params;
    const read = readStrings(params, names);
    if (!read.ok) return { reply: failure(MESSAGES.invalidParams), kind: 'invalid-params' };

    const outcome = await forwardChange(deps, {
      path: operation.upstreamPath,
      payload: operation.payload(read.values),
      user,
      defaultMsg: operation.defaultMsg,
      idempotencyKey: request.idempotencyKey,
      waits: request.waits,
    });

    const entityId = phpIntCast(read.values.id ?? '');
    return auditChange(deps, request, user, outcome, { ...operation.audit(read.values, entityId), entityId });
  };
}

/** Every operation's use case, by the operation's name. */
export function useCases(deps: UseCaseDeps, operations: readonly Operation[]): ReadonlyMap<string, UseCase> {
  return new Map(operations.map((operation) => [operation.name, changeUseCase(deps, operation)]));
}
