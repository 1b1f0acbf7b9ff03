import { createHmac } from 'node:crypto';
import type Koa from 'koa';
import type { Context, Middleware } from 'koa';
import createSession from 'koa-session';
import { checkSession, type Session, type SessionPolicy, type SessionRecord } from '@cotizaciones/core';

/** The part of koa-session's session model this service uses. */
type KoaSessionModel = SessionRecord & {
  regenerate(): Promise<void> | undefined;
  manuallyCommit(): Promise<void> | undefined;
  save(): Promise<void> | undefined;
};

/** koa-session's external store interface (Redis, or anything shared between instances). */
export interface ExternalSessionStore {
  get(key: string, maxAge: number, options: { rolling: boolean; ctx?: unknown }): Promise<unknown>;
  set(key: string, session: unknown, maxAge: number, options: { rolling: boolean; changed: boolean; ctx?: unknown }): Promise<void>;
  destroy(key: string, options: { ctx?: unknown }): Promise<void>;
}

export interface SessionSettings {
  readonly policy: SessionPolicy;
  readonly secure: boolean;
  readonly store?: ExternalSessionStore | undefined;
}

export const SESSION_COOKIE = 'cotizaciones.sid';

/**
 * koa-session with signed cookies (`app.keys`). Sessions are committed by the
 * routes themselves (`autoCommit: false`), so a failure to save a session is
 * the route's to handle, not a replacement of its answer.
 */
export function sessionMiddleware(app: Koa, settings: SessionSettings): Middleware {
  const keys = app.keys as string[];
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
      ...(settings.store ? { store: settings.store } : {}),
    },
    app,
  );
  return (ctx, next) => {
    ctx.state.sessionSignedWithOldKey = signedWithOldKey(ctx, keys);
    return session(ctx, next);
  };
}

/**
 * Whether the session cookie verifies only with a key after the first. The
 * cookies library then re-signs it, but without its attributes (expiry,
 * SameSite, Secure); the commit saves the whole session again instead.
 */
function signedWithOldKey(ctx: Context, keys: readonly string[]): boolean {
  const value = ctx.cookies.get(SESSION_COOKIE, { signed: false });
  const sig = ctx.cookies.get(`${SESSION_COOKIE}.sig`, { signed: false });
  if (!value || !sig || keys.length < 2) return false;
  const sign = (key: string) => createHmac('sha1', key).update(`${SESSION_COOKIE}=${value}`).digest('base64url');
  return sign(keys[0] ?? '') !== sig && keys.slice(1).some((key) => sign(key) === sig);
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
      else if (check.touch && session) session.seenAt = now();
      ctx.state.userId = check.user?.id;
      return Promise.resolve(check.user);
    },
  };
}

/** Writes the session back (the cookie, or the external store). */
export async function commitSession(ctx: Context): Promise<void> {
  const ended = ctx.state.endedSession as KoaSessionModel | undefined;
  if (ended) {
    await ended.manuallyCommit();
    return;
  }
  const session = model(ctx);
  await (ctx.state.sessionSignedWithOldKey && session?.user ? session.save() : session?.manuallyCommit());
}

/** Signs `user` in under a fresh session id (no fixation), recording when. */
export async function signIn(ctx: Context, record: Required<SessionRecord>): Promise<void> {
  const session = model(ctx);
  if (!session) throw new Error('koa-session is not mounted on this route');
  Object.assign(session, record);
  await session.regenerate();
}

export async function signOut(ctx: Context): Promise<void> {
  endSession(ctx, model(ctx));
  await commitSession(ctx);
}
