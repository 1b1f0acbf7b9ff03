// The Fastify reference's handler on this project's chosen libraries: Koa 3, @koa/router,
// koa-session's signed cookie, koa-body, one pino line per request, undici (or got) to the upstream, the
// same batched in-memory log. koa-session is used as the service uses it (its signer in place of
// keygrip, whose per-comparison random HMAC key cost 11 % of this server's CPU; the cookie codec
// given explicitly; no automatic commit): the least these libraries cost. None of the service's
// own work (its middleware, the core's use case, metrics, the SQLite log), so the distance from
// the service to Fastify splits into what the chosen libraries cost and what the service adds.
import { createServer } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import session from 'koa-session';
import { pino } from 'pino';
import { cookieSessionCodec, signingKeys } from '@cotizaciones/adapters';
import { announceListening } from './announce-listening.js';
import { referencePost } from './reference-clients.js';
import { batchedLog } from './batched-log.js';
import { CONTRACT_HEADERS as HEADERS, IDLE_MS, REFERENCE_PATH as PATH, referenceUpdate } from './reference-update.js';

const UPSTREAM = process.env.UPSTREAM_BASE_URL ?? '';
const SECRET = process.env.SESSION_KEYS ?? '';
const TOKEN = process.env.UPSTREAM_TOKEN ?? 'bench-token';

interface SessionData {
  user?: { id?: string | number };
  seenAt?: number;
}

// undici, or got with `got` as the first argument.
const post = referencePost(process.argv[2], UPSTREAM);
const activityLog = batchedLog();
const log = pino();

const app = new Koa();
app.keys = signingKeys([SECRET]);
app.use(async (ctx, next) => {
  const started = performance.now();
  await next();
  log.info(
    { req: { method: ctx.method, url: ctx.url }, res: { statusCode: ctx.status }, responseTime: performance.now() - started },
    'request completed',
  );
});
app.use(
  session(
    {
      key: 'cotizaciones.sid',
      maxAge: 8 * 3_600_000,
      signed: true,
      httpOnly: true,
      sameSite: 'lax',
      autoCommit: false,
      ...cookieSessionCodec,
    },
    app,
  ),
);

const router = new Router();
router.get('/__rows', (ctx) => {
  ctx.body = String(activityLog.count());
});
router.all(PATH, koaBody(), async (ctx) => {
  ctx.set(HEADERS);
  if (ctx.method !== 'POST') {
    ctx.status = 405;
    ctx.set('Allow', 'POST');
    ctx.body = '{"ok":false,"msg":"Método no permitido."}';
    ctx.type = HEADERS['Content-Type'];
    return;
  }
  const data = ctx.session as SessionData | null;
  const userId = data?.user?.id;
  if (!userId || Date.now() - (data.seenAt ?? 0) > IDLE_MS) {
    ctx.body = '{"ok":false,"msg":"No autenticado"}';
    ctx.type = HEADERS['Content-Type'];
    return;
  }
  ctx.body = await referenceUpdate(post, TOKEN, (ctx.request.body ?? {}) as Record<string, unknown>, String(userId), activityLog);
  ctx.type = HEADERS['Content-Type'];
});
app.use(router.routes());

announceListening(createServer(app.callback()));
