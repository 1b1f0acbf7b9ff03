import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import Koa from 'koa';
import { newSessionRecord, type SessionUser } from '@cotizaciones/core';
import { cookieSessionStore, signingKeys, type RecordSessionStore } from '@cotizaciones/adapters';
import { sessionBinding } from '../../src/http/bind-sessions.js';
import { SESSION_COOKIE } from '../../src/http/koa-session-binding.js';
import { cookieHeader, listen, SESSION_KEY, signedCookie } from './service.js';

/** The session port's contract through koa-session over HTTP: session.contract.test.ts and its int twin. */
const policy = { idleMs: 60_000, maxMs: 3_600_000 };

/**
 * The koa-session binding, through real requests on an injected clock: one request signs `user` in
 * (as the dev sign-in does, with the clock's timestamps), the next asks the port and commits what the
 * session-control step wrote back, as the endpoints do. A reference is a browser: it keeps the cookies
 * each answer sets.
 */
export async function koaHarness(store?: RecordSessionStore) {
  let clock = Date.UTC(2026, 10, 23, 12, 0, 0);
  const app = new Koa({ keys: [SESSION_KEY] });
  const router = new Router();
  const binding = sessionBinding(
    app,
    store ?? cookieSessionStore(),
    { signer: signingKeys([SESSION_KEY]), policy, secure: false, now: () => clock },
    false,
  );
  router.post('/put', async (ctx) => {
    await binding.load?.(ctx);
    const user: unknown = JSON.parse(String(ctx.get('x-user')));
    await binding.dev!.signIn(ctx, { ...newSessionRecord({ id: 'x' }, clock), user });
    ctx.body = 'ok';
  });
  router.get('/who', async (ctx) => {
    await binding.load?.(ctx);
    const user = await binding.sessionFor(ctx).currentUser();
    await binding.commit(ctx);
    ctx.body = { user: user ?? null };
  });
  app.use(router.routes());
  const { server, url } = await listen(app);
  /** Each browser's cookies, by reference: name → value, replaced by what each answer sets. */
  const jars = new Map<string, Map<string, string>>();
  const pairs = (header: string) =>
    header
      .split('; ')
      .filter(Boolean)
      .map((pair) => pair.split(/=(.*)/s, 2) as [string, string]);
  const keep = (ref: string, response: Response) => {
    const jar = jars.get(ref) ?? new Map<string, string>();
    for (const [name, value] of pairs(cookieHeader(response))) jar.set(name, value);
    jars.set(ref, jar);
  };
  const cookieOf = (ref: string) => [...(jars.get(ref) ?? [])].map(([name, value]) => `${name}=${value}`).join('; ');
  return {
    close() {
      server.closeAllConnections();
      server.close();
    },
    async signIn(user: unknown): Promise<string> {
      const ref: string = randomUUID();
      keep(ref, await fetch(`${url}/put`, { method: 'POST', headers: { 'x-user': JSON.stringify(user ?? null) } }));
      return ref;
    },
    async currentUser(ref: string | undefined) {
      const response = await fetch(`${url}/who`, { headers: { cookie: ref === undefined ? '' : cookieOf(ref) } });
      if (ref !== undefined) keep(ref, response);
      return ((await response.json()) as { user: SessionUser | null }).user ?? undefined;
    },
    advance(ms: number) {
      clock += ms;
    },
    forge(ref: string): string[] {
      return forgedCookies(cookieOf(ref)).map((cookie) => {
        const forged: string = randomUUID();
        jars.set(forged, new Map(pairs(cookie)));
        return forged;
      });
    },
  };
}

/** One server for every test: the suite's per-test close is left out. */
export function shared(harness: Awaited<ReturnType<typeof koaHarness>>) {
  return {
    signIn: (user: unknown) => harness.signIn(user),
    currentUser: (ref: string | undefined) => harness.currentUser(ref),
    advance: (ms: number) => harness.advance(ms),
    forge: (ref: string) => harness.forge(ref),
  };
}

/** What the binding claims over koa-session, on its real expire, touch and commit. */
export const CLAIMS = {
  idleTimeout: { idleMs: policy.idleMs, renewedByUse: true },
  lifetime: { maxMs: policy.maxMs },
  forgery: true,
} as const;

/** Cookies derived from a real one that the service never signed. */
function forgedCookies(cookie: string): string[] {
  const value = /(?:^|; )cotizaciones\.sid=([^;]*)/.exec(cookie)?.[1] ?? '';
  const sig = /(?:^|; )cotizaciones\.sid\.sig=([^;]*)/.exec(cookie)?.[1] ?? '';
  const flip = (text: string) => `${text.slice(0, -2)}${text.at(-2) === 'A' ? 'B' : 'A'}${text.slice(-1)}`;
  return [
    `${SESSION_COOKIE}=${flip(value)}; ${SESSION_COOKIE}.sig=${sig}`, // value altered, signature kept
    `${SESSION_COOKIE}=${value}; ${SESSION_COOKIE}.sig=${flip(sig)}`, // signature altered
    `${SESSION_COOKIE}=${value}`, // signature dropped
    signedCookie(SESSION_COOKIE, value, 'not-the-service-key'), // signed with another key
  ];
}
