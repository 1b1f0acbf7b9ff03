import Router from '@koa/router';
import Koa from 'koa';
import { afterAll } from 'vitest';
import { inMemorySession } from '@cotizaciones/adapters';
import { redisSessionStore } from '@cotizaciones/adapters/redis';
import { serviceUrls, testSession } from '@cotizaciones/adapters/testing';
import { newSessionRecord } from '@cotizaciones/core';
import type { SessionStore } from '@cotizaciones/adapters';
import { koaSession, sessionMiddleware, signIn } from '../src/http/session.js';
import { cookieHeader, listen, SESSION_KEY } from './support/service.js';

const policy = { idleMs: 60_000, maxMs: 3_600_000 };

testSession('in-memory', { currentUserWith: (user) => inMemorySession(user).currentUser() });

/**
 * The koa-session adapter, through real requests: one stores `user` in the
 * session (as sign-in would, with fresh timestamps), the next asks the port.
 */
async function koaHarness(store?: SessionStore) {
  const app = new Koa({ keys: [SESSION_KEY] });
  const router = new Router();
  const session = sessionMiddleware(app, { keys: [SESSION_KEY], policy, secure: false, store });
  router.post('/put', session, async (ctx) => {
    const user: unknown = JSON.parse(String(ctx.get('x-user')));
    await signIn(ctx, { ...newSessionRecord({ id: 'x' }, Date.now()), user });
    ctx.body = 'ok';
  });
  router.get('/who', session, async (ctx) => {
    ctx.body = { user: (await koaSession(ctx, policy).currentUser()) ?? null };
  });
  app.use(router.routes());
  const { server, url } = await listen(app);
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  return {
    async currentUserWith(user: unknown) {
      let cookie = '';
      if (user !== undefined) {
        const put = await fetch(`${url}/put`, { method: 'POST', headers: { 'x-user': JSON.stringify(user) } });
        cookie = cookieHeader(put);
      }
      const who = (await (await fetch(`${url}/who`, { headers: { cookie } })).json()) as { user: unknown };
      return (who.user ?? undefined) as never;
    },
  };
}

testSession('koa-session, cookie store', await koaHarness());

const urls = serviceUrls();
if (urls.redis) {
  const store = redisSessionStore({ url: urls.redis, prefix: 'test:contract:' });
  await store.ready(2_000);
  afterAll(() => store.close());
  testSession('koa-session, Redis store', await koaHarness(store));
}
