// Koa 3 and @koa/router with undici to the upstream and nothing else: no session check, no body
// parser library, no request log. Not the contract (it answers anyone); a rung of the ladder from
// the bare forwarder to the service, measuring what Koa itself costs apart from its middleware.
import { createServer } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import { announceListening } from './announce-listening.js';
import { undiciPost } from './reference-clients.js';
import { batchedLog } from './batched-log.js';
import { CONTRACT_HEADERS as HEADERS, REFERENCE_PATH as PATH, referenceUpdate } from './reference-update.js';

const UPSTREAM = process.env.UPSTREAM_BASE_URL ?? '';
const TOKEN = process.env.UPSTREAM_TOKEN ?? 'bench-token';

const post = undiciPost(UPSTREAM);
const activityLog = batchedLog();

const app = new Koa();
const router = new Router();
router.get('/__rows', (ctx) => {
  ctx.body = String(activityLog.count());
});
router.all(PATH, async (ctx) => {
  ctx.set(HEADERS);
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('latin1')));
  ctx.body = await referenceUpdate(post, TOKEN, form, '1', activityLog);
  ctx.type = HEADERS['Content-Type'];
});
app.use(router.routes());

announceListening(createServer(app.callback()));
