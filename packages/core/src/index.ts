export { OPERATIONS, UPDATE_QUOTATION_FIELD, UPDATE_QUOTATION_ITEM, paramNames, type Operation, type Params } from './operations.js';
export { changeUseCase, useCases, type UseCase } from './change-use-case.js';
export type { ChangeRequest, RequestMeta, UseCaseDeps } from './change-request.js';
export type { WaitTally } from './forward-change.js';
export { sessionUnavailable, type Outcome, type OutcomeKind } from './outcome.js';
export { PortFailure, type FailureCode } from './failure.js';
export { MESSAGES, type Reply } from './reply.js';
export { replyFromUpstream } from './upstream-reply.js';
export { isInt64, phpIntCast } from './php-int.js';
export { isRequestId } from './request-id.js';
export { phpFormParams, STRUCTURED, type FormParams, type FormValue } from './form-params.js';
export { MODULE } from './audit.js';
export {
  checkSession,
  controlledSession,
  policyControl,
  newSessionRecord,
  toSessionUser,
  type SessionCheck,
  type SessionPolicy,
  type SessionRecord,
  type SessionRecordAccess,
  type SessionControl,
} from './session-control.js';
export { SessionUnavailableError, type Session, type SessionUnavailableReason, type SessionUser } from './ports/session.js';
export {
  DEFAULT_MAX_RESPONSE_BYTES,
  parseUpstreamBody,
  upstreamConnectionError,
  upstreamTooLarge,
  UpstreamError,
  type Upstream,
  type UpstreamErrorKind,
  type UpstreamPayload,
  type UpstreamReply,
  type UpstreamRequest,
} from './ports/upstream.js';
export { TokenUnavailableError, type TokenSource } from './ports/token-source.js';
export type { ActivityEntry, ActivityLog } from './ports/activity-log.js';
