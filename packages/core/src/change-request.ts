import type { FormParams } from './form-params.js';
import type { ActivityLog } from './ports/activity-log.js';
import type { Session } from './ports/session.js';
import type { ForwardDeps, WaitTally } from './forward-change.js';

/** What the channel knows about the caller, copied into the audit entry. */
export interface RequestMeta {
  readonly requestId?: string | undefined;
  readonly clientIp?: string | undefined;
  readonly userAgent?: string | undefined;
}

/** One call of a use case: the caller's session and the form parameters they sent. */
export interface ChangeRequest {
  readonly session: Session;
  /** The parameters, or how to read them: read only once the caller is known to be signed in (a body costs). */
  readonly params: FormParams | (() => Promise<FormParams>);
  /**
   * The change's key for the upstream (`Idempotency-Key`): the same for every re-send of this
   * change, another for any other. The channel makes it; a client never chooses it.
   */
  readonly idempotencyKey: string;
  readonly meta?: RequestMeta;
  /** Given, the time spent waiting on the token source and the upstream is added to it. */
  readonly waits?: WaitTally | undefined;
}

export interface UseCaseDeps extends ForwardDeps {
  readonly activityLog: ActivityLog;
  /** Clock for the audit entry's `created_at`. */
  readonly now?: () => Date;
}
