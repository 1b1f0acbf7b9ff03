import {
  DEFAULT_MAX_RESPONSE_BYTES,
  parseUpstreamBody,
  upstreamTooLarge,
  UpstreamError,
  type Upstream,
  type UpstreamRequest,
} from '../ports/upstream.js';

/** An answer of the fake upstream: a JSON value, or raw text to exercise unreadable bodies. */
export type ScriptedAnswer = { status?: number; json: unknown } | { status?: number; text: string };

/** Answers one request; throwing means the connection dropped. */
export type UpstreamResponder = (request: UpstreamRequest) => ScriptedAnswer | Promise<ScriptedAnswer>;

export interface InMemoryUpstream extends Upstream {
  /** Every request received, in order. */
  readonly calls: UpstreamRequest[];
  /** Replaces the responder for the following calls. */
  respondWith(responder: UpstreamResponder): void;
}

/** An upstream in the same process: answers `{"ok":true}` unless told otherwise. */
export function inMemoryUpstream(
  options: { respond?: UpstreamResponder; timeoutMs?: number; maxResponseBytes?: number } = {},
): InMemoryUpstream {
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  let respond: UpstreamResponder = options.respond ?? (() => ({ json: { ok: true } }));
  const timeoutMs = options.timeoutMs ?? 10_000;
  const calls: UpstreamRequest[] = [];

  async function answer(request: UpstreamRequest): Promise<ScriptedAnswer> {
    try {
      return await respond(request);
    } catch (error) {
      throw new UpstreamError('connection', 'in-memory upstream dropped the connection', { cause: error });
    }
  }

  return {
    calls,
    respondWith(next) {
      respond = next;
    },
    async post(request) {
      calls.push(structuredClone(request));
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new UpstreamError('timeout', `no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        const scripted = await Promise.race([answer(request), timeout]);
        if ('text' in scripted && new TextEncoder().encode(scripted.text).length > maxBytes) throw upstreamTooLarge(maxBytes);
        const body = 'json' in scripted ? structuredClone(scripted.json) : parseUpstreamBody(scripted.text, scripted.status ?? 200);
        return { status: scripted.status ?? 200, body };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
