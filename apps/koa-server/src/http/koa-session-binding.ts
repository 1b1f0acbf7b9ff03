import type Koa from 'koa';
import createSession from 'koa-session';
import { controlledSession, policyControl, type SessionPolicy, type SessionRecord, type SessionRecordAccess } from '@cotizaciones/core';
import { cookieSessionCodec, type SessionRecords, type SigningKeys } from '@cotizaciones/adapters';
import type { RequestContext, RequestMiddleware } from './request-state.js';
import { perRequest, type SessionBinding } from './session-binding.js';

/** The part of koa-session's session model this service uses. */
type KoaSessionModel = SessionRecord & {
  regenerate(): Promise<void> | undefined;
  manuallyCommit(): Promise<void> | undefined;
  save(): Promise<void> | undefined;
};

export interface SessionSettings {
  /** SESSION_KEYS, imported once: the first signs, all verify (the app's `keys` too). */
  readonly signer: SigningKeys;
  readonly policy: SessionPolicy;
  readonly secure: boolean;
  /** Where the records are kept when not in the cookie (Redis, or anything shared between instances). */
  readonly store?: SessionRecords | undefined;
  /** The clock the session policy reads (epoch ms); tests inject one. */
  readonly now?: (() => number) | undefined;
}

export const SESSION_COOKIE = 'cotizaciones.sid';

/** What one request did to its session, for the commit. */
interface SessionWork {
  touched: boolean;
  changed: boolean;
  /** The model of a session ended by this request: kept so its removal can be committed. */
  ended?: KoaSessionModel | null | undefined;
  /** The store's record read into the request (koa-session's own middleware, run once). */
  loaded?: Promise<void>;
}
const workOf = (ctx: RequestContext): SessionWork => {
  let found = ctx.state.sessionWork as SessionWork | undefined;
  if (!found) ctx.state.sessionWork = found = { touched: false, changed: false };
  return found;
};

/**
 * SESSION_STORE=cookie or redis: koa-session keeps the record (in the signed
 * cookie, or the store under the cookie's id); the core's `controlledSession`
 * applies the policy to it. This file only says how koa-session's record is read,
 * expired, touched and committed.
 */
export function koaSessionBinding(app: Koa, settings: SessionSettings): SessionBinding {
  const session = sessionMiddleware(app, settings);
  const commit = (ctx: RequestContext) => commitSession(ctx, settings.signer.count > 1 && signedWithOldKey(ctx, settings.signer));
  return {
    // A signed cookie is read on first use of ctx.session (koa-session's getter): only a store's record is loaded, once a request.
    load: settings.store ? (ctx) => (workOf(ctx).loaded ??= loadRecord(session, ctx)) : undefined,
    sessionFor: (ctx) => perRequest(ctx, () => controlledSession(recordAccess(ctx), policyControl(settings.policy), settings.now)),
    commit,
    dev: { signIn, signOut: (ctx) => signOut(ctx, commit) },
  };
}

/** Runs koa-session's middleware with nothing after it: with a store, it reads the record into `ctx.session`. */
async function loadRecord(session: RequestMiddleware, ctx: RequestContext): Promise<void> {
  await session(ctx, () => Promise.resolve());
}

/**
 * koa-session with signed cookies (`app.keys`). Sessions are committed by the
 * routes themselves (`autoCommit: false`), so a failure to save a session is
 * the route's to handle, not a replacement of its answer.
 */
function sessionMiddleware(app: Koa, settings: SessionSettings): RequestMiddleware {
  return createSession(
    {
      key: SESSION_COOKIE,
      maxAge: settings.policy.maxMs,
      httpOnly: true,
      sameSite: 'lax',
      secure: settings.secure,
      signed: true,
      overwrite: true,
      autoCommit: false,
      ...cookieSessionCodec,
      ...(settings.store ? { store: koaStore(settings.store) } : {}),
    },
    app,
  );
}

/** koa-session keeps browser-session cookies' records a day in its own stores: so does this one. */
const BROWSER_SESSION_TTL_MS = 86_400_000;

/** The adapters' record store in koa-session's terms. */
function koaStore(store: SessionRecords) {
  return {
    get: (key: string) => store.get(key),
    set: (key: string, record: unknown, maxAge: number | 'session') =>
      store.set(key, record, typeof maxAge === 'number' ? maxAge : BROWSER_SESSION_TTL_MS),
    destroy: (key: string) => store.destroy(key),
  };
}

/**
 * Whether the session cookie verifies only with a key after the first. The
 * cookies library then re-signs it, but without its attributes (expiry,
 * SameSite, Secure); the commit saves the whole session again instead.
 */
function signedWithOldKey(ctx: RequestContext, signer: SigningKeys): boolean {
  const value = ctx.cookies.get(SESSION_COOKIE, { signed: false });
  const sig = ctx.cookies.get(`${SESSION_COOKIE}.sig`, { signed: false });
  if (!value || !sig) return false;
  return signer.index(`${SESSION_COOKIE}=${value}`, sig) > 0;
}

/** koa-session's `ctx.session`, which it does not declare on Koa's context. */
const sessionOf = (ctx: RequestContext) => ctx as unknown as { session: KoaSessionModel | null };

/** Ends the session; it is removed (cookie cleared, store entry deleted) at the next commit. */
function endSession(ctx: RequestContext): void {
  // koa-session reads `null` as "removed"; keep the model so the removal can still be committed.
  workOf(ctx).ended = sessionOf(ctx).session;
  sessionOf(ctx).session = null;
}

/** koa-session's record for this request, as the core's session-control step sees it. */
function recordAccess(ctx: RequestContext): SessionRecordAccess {
  return {
    read: () => sessionOf(ctx).session,
    expire: () => endSession(ctx),
    touch(now) {
      const session = sessionOf(ctx).session;
      if (!session) return;
      session.seenAt = now;
      workOf(ctx).touched = true;
    },
  };
}

/**
 * Writes the session back (the cookie, or the external store) when this
 * request changed it; koa-session would otherwise serialise and hash it again
 * only to find it unchanged.
 */
async function commitSession(ctx: RequestContext, signedWithOldKey: boolean): Promise<void> {
  const done = workOf(ctx);
  if (done.ended) {
    await done.ended.manuallyCommit();
    return;
  }
  const session = sessionOf(ctx).session;
  if (signedWithOldKey && session?.user) await session.save();
  else if (done.touched || done.changed) await session?.manuallyCommit();
}

/** Signs `user` in under a fresh session id (no fixation), recording when. */
async function signIn(ctx: RequestContext, record: Required<SessionRecord>): Promise<void> {
  const session = sessionOf(ctx).session;
  if (!session) throw new Error('koa-session is not mounted on this route');
  Object.assign(session, record);
  workOf(ctx).changed = true;
  await session.regenerate();
}

async function signOut(ctx: RequestContext, commit: (ctx: RequestContext) => Promise<void>): Promise<void> {
  endSession(ctx);
  await commit(ctx);
}
