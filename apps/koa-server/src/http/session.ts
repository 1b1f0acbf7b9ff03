import type Koa from 'koa';
import type { Context, Middleware } from 'koa';
import createSession from 'koa-session';
import { signingKeys, type SigningKeys } from './signing-keys.js';
import { checkSession, type Session, type SessionPolicy, type SessionRecord } from '@cotizaciones/core';
import type { SessionStore } from '@cotizaciones/adapters';

/** The part of koa-session's session model this service uses. */
type KoaSessionModel = SessionRecord & {
  regenerate(): Promise<void> | undefined;
  manuallyCommit(): Promise<void> | undefined;
  save(): Promise<void> | undefined;
};

export interface SessionSettings {
  /** SESSION_KEYS: the first signs, all verify. */
  readonly keys: readonly string[];
  readonly policy: SessionPolicy;
  readonly secure: boolean;
  /** koa-session's external store (Redis, or anything shared between instances). */
  readonly store?: SessionStore | undefined;
}

export const SESSION_COOKIE = 'cotizaciones.sid';

/**
 * koa-session with signed cookies (`app.keys`). Sessions are committed by the
 * routes themselves (`autoCommit: false`), so a failure to save a session is
 * the route's to handle, not a replacement of its answer.
 */
export function sessionMiddleware(app: Koa, settings: SessionSettings): Middleware {
  const signer = signingKeys(settings.keys);
  const several = settings.keys.length > 1;
  const session = createSession(
    {
      key: SESSION_COOKIE,
      maxAge: settings.policy.maxMs,
      httpOnly: true,
      sameSite: 'lax',
      secure: settings.secure,
      signed: true,
      overwrite: true,
      autoCommit: false,
      // Given explicitly: koa-session's defaults are zod-wrapped functions that re-validate on every call.
      encode: (session: unknown) => Buffer.from(JSON.stringify(session)).toString('base64'),
      decode: (cookie: string) => JSON.parse(Buffer.from(cookie, 'base64').toString('utf8')) as unknown,
      ...(settings.store ? { store: settings.store } : {}),
    },
    app,
  );
  return (ctx, next) => {
    ctx.state.sessionSignedWithOldKey = several && signedWithOldKey(ctx, signer);
    return session(ctx, next);
  };
}

/**
 * Whether the session cookie verifies only with a key after the first. The
 * cookies library then re-signs it, but without its attributes (expiry,
 * SameSite, Secure); the commit saves the whole session again instead.
 */
function signedWithOldKey(ctx: Context, signer: SigningKeys): boolean {
  const value = ctx.cookies.get(SESSION_COOKIE, { signed: false });
  const sig = ctx.cookies.get(`${SESSION_COOKIE}.sig`, { signed: false });
  if (!value || !sig) return false;
  return signer.index(`${SESSION_COOKIE}=${value}`, sig) > 0;
}

function model(ctx: Context): KoaSessionModel | null {
  return (ctx as unknown as { session: KoaSessionModel | null }).session;
}

/** Ends the session; it is removed (cookie cleared, store entry deleted) at the next commit. */
function endSession(ctx: Context, session: KoaSessionModel | null): void {
  // koa-session reads `null` as "removed"; keep the model so the removal can still be committed.
  ctx.state.endedSession = session;
  (ctx as unknown as { session: null }).session = null;
}

/** The Session port over koa-session: applies the idle timeout and absolute lifetime. */
export function koaSession(ctx: Context, policy: SessionPolicy, now: () => number = Date.now): Session {
  return {
    currentUser() {
      const session = model(ctx);
      const check = checkSession(session, now(), policy);
      if (check.expired) endSession(ctx, session);
      else if (check.touch && session) {
        session.seenAt = now();
        ctx.state.sessionTouched = true;
      }
      ctx.state.userId = check.user?.id;
      return Promise.resolve(check.user);
    },
  };
}

/**
 * Writes the session back (the cookie, or the external store) when this
 * request changed it; koa-session would otherwise serialise and hash it again
 * only to find it unchanged.
 */
export async function commitSession(ctx: Context): Promise<void> {
  const ended = ctx.state.endedSession as KoaSessionModel | undefined;
  if (ended) {
    await ended.manuallyCommit();
    return;
  }
  const session = model(ctx);
  if (ctx.state.sessionSignedWithOldKey && session?.user) await session.save();
  else if (ctx.state.sessionTouched || ctx.state.sessionChanged) await session?.manuallyCommit();
}

/** Signs `user` in under a fresh session id (no fixation), recording when. */
export async function signIn(ctx: Context, record: Required<SessionRecord>): Promise<void> {
  const session = model(ctx);
  if (!session) throw new Error('koa-session is not mounted on this route');
  Object.assign(session, record);
  ctx.state.sessionChanged = true;
  await session.regenerate();
}

export async function signOut(ctx: Context): Promise<void> {
  endSession(ctx, model(ctx));
  await commitSession(ctx);
}
