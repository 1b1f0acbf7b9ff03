// The reference: endpoint A's contract on Fastify 5, written the way a Node team would write it
// instead of this service. Fastify's default request logging (pino, two JSON lines per request to
// stdout, which the bench reads as a pipe, as a container runtime would), @fastify/cookie's signed
// session cookie, @fastify/formbody, undici to the upstream, and the same batched in-memory log as
// the baseline. Nothing here is tuned to lose (or to win): defaults, plainly used.
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import Fastify from 'fastify';
import { batchedLog } from './batched-log.js';
import { undiciPost } from './reference-clients.js';
import { CONTRACT_HEADERS as HEADERS, IDLE_MS, REFERENCE_PATH as PATH, referenceUpdate } from './reference-update.js';

const UPSTREAM = process.env.UPSTREAM_BASE_URL ?? '';
const SECRET = process.env.SESSION_KEYS ?? '';
const TOKEN = process.env.UPSTREAM_TOKEN ?? 'bench-token';
const COOKIE = 'cotizaciones.sid';

interface SessionData {
  user?: { id?: string | number };
  expiresAt?: number;
  seenAt?: number;
}

const post = undiciPost(UPSTREAM);
const activityLog = batchedLog();

const app = Fastify({ logger: true, bodyLimit: 1024 * 1024 });
await app.register(fastifyCookie, { secret: SECRET });
await app.register(fastifyFormbody);

app.get('/__rows', () => String(activityLog.count()));

function sessionUser(signed: string | undefined, unsign: (value: string) => { valid: boolean; value: string | null }): string | undefined {
  if (!signed) return undefined;
  const { valid, value } = unsign(signed);
  if (!valid || value === null) return undefined;
  const session = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as SessionData;
  const now = Date.now();
  if (!session.user?.id || (session.expiresAt ?? 0) < now || now - (session.seenAt ?? 0) > IDLE_MS) return undefined;
  return String(session.user.id);
}

app.route({
  method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'],
  url: PATH,
  handler: async (request, reply) => {
    void reply.headers(HEADERS);
    if (request.method !== 'POST') return reply.code(405).header('Allow', 'POST').send('{"ok":false,"msg":"Método no permitido."}');
    const userId = sessionUser(request.cookies[COOKIE], (value) => request.unsignCookie(value));
    if (!userId) return reply.send('{"ok":false,"msg":"No autenticado"}');
    return reply.send(await referenceUpdate(post, TOKEN, (request.body ?? {}) as Record<string, unknown>, userId, activityLog));
  },
});

app.setNotFoundHandler((_request, reply) => reply.code(404).headers(HEADERS).send('{"ok":false,"msg":"No encontrado."}'));

const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ url })}\n`);
process.on('SIGTERM', () => process.exit(0));
