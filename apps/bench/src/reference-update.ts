import { phpIntCast, UPDATE_QUOTATION_FIELD } from '@cotizaciones/core';
import { SERVER_JSON_HEADERS } from '@cotizaciones/koa-server/http/answers';
import type { batchedLog } from './batched-log.js';
import type { ReferencePost } from './reference-clients.js';

/** Endpoint A's path, as the references serve it. */
export const REFERENCE_PATH = UPDATE_QUOTATION_FIELD.webPath;
/** The session's idle limit the references check. */
export const IDLE_MS = 30 * 60_000;
/** The contract's answer headers, from their one home in the service (its answers outside Koa carry all of them). */
export const CONTRACT_HEADERS = SERVER_JSON_HEADERS;

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/**
 * Endpoint A's work once the framework has checked the session and parsed the form, as the
 * reference servers (Fastify, the Koa floor) write it plainly: the payload rules, the upstream call, the log entry on success. Gives the answer's body.
 */
export async function referenceUpdate(
  post: ReferencePost,
  token: string,
  form: Record<string, unknown>,
  userId: string,
  activityLog: ReturnType<typeof batchedLog>,
): Promise<string> {
  const id = text(form.id) ?? 0;
  const field = text(form.field) ?? '';
  const payload =
    field === 'benef_emp'
      ? { id, field, idEmpresa: text(form.idEmpresa) ?? 0, idUsuario: text(form.idUsuario) ?? 0 }
      : { id, field, value: text(form.value) ?? '' };
  const headers = { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` };
  const answer = (await post(UPDATE_QUOTATION_FIELD.upstreamPath, headers, JSON.stringify(payload))) as { ok?: unknown };
  const ok = answer.ok === true;
  const entityId = phpIntCast(typeof id === 'string' ? id : '');
  if (ok && entityId > 0n)
    activityLog.record({ createdAt: new Date(), eventKey: 'cotizaciones.update', entityId, userId, details: { field } });
  return ok ? '{"ok":true}' : '{"ok":false,"msg":"No se pudo actualizar la cotización."}';
}
