// The floor: endpoint A's contract on bare node:http + undici, in its own process. Same work as the
// service (signed cookie check, form parsing, payload, exact headers, a batched in-memory log), no framework.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Pool } from 'undici';
import { phpIntCast, UPDATE_QUOTATION_FIELD } from '@cotizaciones/core';
import { announceListening } from './announce-listening.js';
import { batchedLog } from './batched-log.js';
import { CONTRACT_HEADERS as HEADERS } from './reference-update.js';

const UPSTREAM = process.env.UPSTREAM_BASE_URL ?? '';
const KEY = process.env.SESSION_KEYS ?? '';
const PATH = UPDATE_QUOTATION_FIELD.webPath;
const COOKIE = 'cotizaciones.sid';
const pool = new Pool(UPSTREAM, { connections: 256, keepAliveTimeout: 4_000 });

const activityLog = batchedLog();

function reply(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { ...HEADERS, 'Content-Length': Buffer.byteLength(body) }).end(body);
}

function sessionUser(req: IncomingMessage): string | undefined {
  const cookies = new Map(
    (req.headers.cookie ?? '').split(/; */).map((part) => {
      const eq = part.indexOf('=');
      return [part.slice(0, eq), part.slice(eq + 1)] as const;
    }),
  );
  const value = cookies.get(COOKIE);
  const sig = cookies.get(`${COOKIE}.sig`);
  if (!value || !sig) return undefined;
  const expected = Buffer.from(createHmac('sha1', KEY).update(`${COOKIE}=${value}`).digest('base64url'));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  const session = JSON.parse(Buffer.from(value, 'base64').toString('utf8')) as {
    user?: { id?: string | number };
    _expire?: number;
    seenAt?: number;
  };
  const now = Date.now();
  if (!session.user?.id || (session._expire ?? 0) < now || now - (session.seenAt ?? 0) > 30 * 60_000) return undefined;
  return String(session.user.id);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 1024 * 1024) throw new Error('too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const server = createServer((req, res) => {
  void handle(req, res).catch(() => reply(res, 500, '{"ok":false,"msg":"Error interno."}'));
});

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.url === '/__rows') {
    res.end(String(activityLog.count()));
    return;
  }
  if (req.url !== PATH) return reply(res, 404, '{"ok":false,"msg":"No encontrado."}');
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST');
    return reply(res, 405, '{"ok":false,"msg":"Método no permitido."}');
  }
  const raw = await readBody(req);
  const userId = sessionUser(req);
  if (!userId) return reply(res, 200, '{"ok":false,"msg":"No autenticado"}');
  const form = (req.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')
    ? new URLSearchParams(raw)
    : new URLSearchParams();
  const id = form.get('id') ?? 0;
  const field = form.get('field') ?? '';
  const payload =
    field === 'benef_emp'
      ? { id, field, idEmpresa: form.get('idEmpresa') ?? 0, idUsuario: form.get('idUsuario') ?? 0 }
      : { id, field, value: form.get('value') ?? '' };
  const upstream = await pool.request({
    method: 'POST',
    path: UPDATE_QUOTATION_FIELD.upstreamPath,
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: 'Bearer bench-token' },
    body: JSON.stringify(payload),
  });
  const answer = (await upstream.body.json()) as { ok?: unknown };
  const ok = answer.ok === true;
  reply(res, 200, ok ? '{"ok":true}' : '{"ok":false,"msg":"No se pudo actualizar la cotización."}');
  const entityId = phpIntCast(typeof id === 'string' ? id : '');
  if (ok && entityId > 0n)
    activityLog.record({ createdAt: new Date(), eventKey: 'cotizaciones.update', entityId, userId, details: { field } });
}

announceListening(server);
