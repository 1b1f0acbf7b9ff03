import { PortFailure } from './failure.js';
import type { Outcome } from './outcome.js';
import { failure } from './reply.js';
import type { SessionUser } from './ports/session.js';
import { TokenUnavailableError, type TokenSource } from './ports/token-source.js';
import { UpstreamError, type Upstream, type UpstreamPayload, type UpstreamReply } from './ports/upstream.js';
import { replyFromUpstream } from './upstream-reply.js';

export interface ForwardDeps {
  readonly upstream: Upstream;
  readonly tokens: TokenSource;
}

/**
 * Where a channel adds up how long one request waited on other services (the token source and the
 * upstream): a field of an object the channel has per request anyway, so timing costs it no allocation.
 */
export interface WaitTally {
  waitedMs?: number;
}

export interface Change {
  readonly path: string;
  readonly payload: UpstreamPayload;
  readonly user: SessionUser;
  /** The operation's message when the upstream gives none. */
  readonly defaultMsg: string;
  readonly idempotencyKey: string;
  /** Where the time spent waiting on the token source and the upstream is added up. */
  readonly waits?: WaitTally | undefined;
}

/**
 * Sends a change to the upstream under the user's token. A POST is never
 * retried, except once after a 401 when the token source issues a fresh token
 * (a 401 means the change was not applied).
 */
export async function forwardChange(deps: ForwardDeps, change: Change): Promise<Outcome> {
  const { upstream, tokens } = deps;
  const started = performance.now();
  let answer: UpstreamReply;
  try {
    const token = await tokens.token(change.user);
    answer = await post(upstream, change, token);
    if (answer.status === 401 && tokens.refresh) {
      const fresh = await tokens.refresh(change.user, token);
      if (fresh !== undefined) answer = await post(upstream, change, fresh);
    }
  } catch (error) {
    addWait(change.waits, started);
    if (error instanceof TokenUnavailableError) {
      return { reply: failure(change.defaultMsg), kind: 'token-unavailable', cause: error };
    }
    if (error instanceof UpstreamError) {
      return { reply: failure(change.defaultMsg), kind: 'upstream-failed', cause: error };
    }
    throw error;
  }
  addWait(change.waits, started);
  // A 401 with nothing to say is about the token, not the change: a failure, with its cause for the log.
  if (answer.status === 401 && answer.body === undefined) {
    return {
      reply: failure(change.defaultMsg),
      kind: 'token-rejected',
      cause: new PortFailure('TOKEN_REJECTED', 'the upstream refused the token (401)'),
    };
  }
  const reply = replyFromUpstream(answer.body, change.defaultMsg);
  return { reply, kind: reply.ok ? 'ok' : 'upstream-rejected' };
}

/** The token fetches and upstream calls since `started`: time the request waited on others, not its own work. */
function addWait(waits: WaitTally | undefined, started: number): void {
  if (waits) waits.waitedMs = (waits.waitedMs ?? 0) + (performance.now() - started);
}

function post(upstream: Upstream, change: Change, token: string): Promise<UpstreamReply> {
  return upstream.post({ path: change.path, payload: change.payload, token, idempotencyKey: change.idempotencyKey });
}
