import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import Koa from 'koa';
import { afterAll, beforeAll, describe } from 'vitest';
import { redisSessionStore } from '@cotizaciones/adapters/redis';
import { deleteRedisKeys, serviceUrls, testSession } from '@cotizaciones/adapters/testing';
import { controlledSession, newSessionRecord, policyControl, type SessionRecord } from '@cotizaciones/core';
import { signingKeys, type SessionStore } from '@cotizaciones/adapters';
import { koaSessionBinding, SESSION_COOKIE } from '../src/http/koa-session-binding.js';
import { cookieHeader, listen, SESSION_KEY, signedCookie } from './support/service.js';

const policy = { idleMs: 60_000, maxMs: 3_600_000 };

/**
 * The session-control step at the port level, on an injected clock: records held by key, as a store
 * holds them; expiry forgets the record, activity writes `seenAt` back. (Forgery is the cookie
 * layer's to refuse: tested below through koa-session.)
 */
testSession(
  'session-control step over stored records',
  () => {
    let clock = Date.UTC(2026, 10, 23, 12, 0, 0);
    const records = new Map<string, SessionRecord>();
    return Promise.resolve({
      signIn(user: unknown) {
        const key = `k${records.size + 1}`;
        records.set(key, { ...newSessionRecord({ id: 'placeholder' }, clock), user });
        return Promise.resolve(key);
      },
      currentUser(key: string | undefined) {
        const access = {
          read: () => (key === undefined ? undefined : records.get(key)),
          expire: () => void records.delete(key ?? ''),
          touch(now: number) {
            const record = key === undefined ? undefined : records.get(key);
            if (record) record.seenAt = now;
          },
        };
        return controlledSession(access, policyControl(policy), () => clock).currentUser();
      },
      advance(ms: number) {
        clock += ms;
      },
    });
  },
  { idleTimeout: { idleMs: policy.idleMs, renewedByUse: true }, lifetime: { maxMs: policy.maxMs } },
);

/**
 * The koa-session adapter, through real requests: one stores `user` in the
 * session (as sign-in would, with fresh timestamps), the next asks the port.
 */
async function koaHarness(store?: SessionStore) {
  const app = new Koa({ keys: [SESSION_KEY] });
  const router = new Router();
  const binding = koaSessionBinding(app, { signer: signingKeys([SESSION_KEY]), policy, secure: false, store });
  router.post('/put', async (ctx) => {
    await binding.load?.(ctx);
    const user: unknown = JSON.parse(String(ctx.get('x-user')));
    await binding.dev!.signIn(ctx, { ...newSessionRecord({ id: 'x' }, Date.now()), user });
    ctx.body = 'ok';
  });
  router.get('/who', async (ctx) => {
    await binding.load?.(ctx);
    ctx.body = { user: (await binding.sessionFor(ctx).currentUser()) ?? null };
  });
  app.use(router.routes());
  const { server, url } = await listen(app);
  return {
    close() {
      server.closeAllConnections();
      server.close();
    },
    async signIn(user: unknown) {
      const put = await fetch(`${url}/put`, { method: 'POST', headers: { 'x-user': JSON.stringify(user ?? null) } });
      return cookieHeader(put);
    },
    async currentUser(cookie: string | undefined) {
      const who = (await (await fetch(`${url}/who`, { headers: { cookie: cookie ?? '' } })).json()) as { user: unknown };
      return (who.user ?? undefined) as never;
    },
    forge: forgedCookies,
  };
}

/** One server for every test: the suite's per-test close is left out. */
function shared(harness: Awaited<ReturnType<typeof koaHarness>>) {
  return { signIn: (user: unknown) => harness.signIn(user), currentUser: (cookie: string | undefined) => harness.currentUser(cookie), forge: forgedCookies };
}

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

// Over HTTP, on the real clock: expiry is the session-control step's, tested above on an injected clock.
const cookieHarness = await koaHarness();
afterAll(() => cookieHarness.close());
testSession('koa-session, cookie store', () => Promise.resolve(shared(cookieHarness)), { forgery: true });

const urls = serviceUrls();
describe.skipIf(!urls.redis)('with Redis', () => {
  let harness: Awaited<ReturnType<typeof koaHarness>> | undefined;
  let store: ReturnType<typeof redisSessionStore> | undefined;
  const prefix = `test:contract:${randomUUID()}:`;
  beforeAll(async () => {
    store = redisSessionStore({ url: urls.redis ?? '', prefix });
    await store.ready(2_000);
    harness = await koaHarness(store);
  });
  afterAll(async () => {
    harness?.close();
    await store?.close();
    await deleteRedisKeys(urls.redis ?? '', prefix);
  });
  testSession('koa-session, Redis store', () => Promise.resolve(shared(harness!)), { forgery: true });
});
