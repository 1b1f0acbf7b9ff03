import {
  controlledSession,
  SessionUnavailableError,
  toSessionUser,
  type Session,
  type SessionCheck,
  type SessionControl,
  type SessionUser,
} from '@cotizaciones/core';
import { phpSettingsProblems } from './options.js';
import { PHP_SESSION_DEFAULTS, type PhpSessionProblem, type PhpSessionSettings } from './settings.js';
import { PhpSessionDecodeError, type PhpValue } from './php-value.js';
import { decodePhpSession, encodeInt, isPlainNumber, type DecodedPhpSession } from './session-formats.js';
import { sessionIdFromCookies, sessionIdHash } from './session-id.js';
import type { PhpSaveHandlerStore } from './save-handler-store.js';
import type { PhpSessionStore } from '../session/session-store.js';
import { SAVE_HANDLERS, saveHandlerNamed, type PhpSaveHandlerEntry, type SaveHandlerContext } from './save-handlers.js';
import { rateLimitedReport } from './rate-limited-report.js';
import { LOCK_WAIT_MS } from './shared-lock.js';
import { toPlain } from './to-plain.js';

export type { PhpSessionProblem } from './settings.js';

export interface PhpSessionsOptions extends PhpSessionSettings {
  /** Clock, epoch milliseconds. */
  readonly now?: () => number;
  /** Told about sessions answered as "no user" for a reason worth logging, and touches that failed; never given the id. */
  readonly onProblem?: (problem: PhpSessionProblem) => void;
  /** Told when the Redis connection (a cluster: any node's), or a pooled connection to the session table's database, fails. */
  readonly onConnectionError?: (error: Error) => void;
  /** Told each time the number of requests waiting on PHP's file locks changes. */
  readonly onLockWaiters?: (waiting: number) => void;
  /** The save handlers `saveHandler` names one of. Default `SAVE_HANDLERS`. */
  readonly handlers?: readonly PhpSaveHandlerEntry[];
}

/** A start-up configuration the adapter cannot honour. */
export class PhpSessionConfigError extends Error {
  override readonly name = 'PhpSessionConfigError';
}

/** Empty and undecodable sessions, and a touch failing the same way, are said at most this often: any visitor can make one per request. */
const REPEATED_PROBLEM_EVERY_MS = 60_000;
const NO_SESSION: Session = { currentUser: () => Promise.resolve(undefined) };

/**
 * The PHP app's own sessions behind the core's Session port: same cookie, same
 * store, same user, same sign-out. Reads never create anything; writes are the
 * ones PHP itself would make (the expiry) and, in `activity` mode on Redis, Redis Cluster,
 * memcached or a PDO table, the activity value alone, in a transaction (a compare-and-set script,
 * `cas`, or a compare-and-set UPDATE) that yields to any PHP write.
 */
export function phpSessions(options: PhpSessionsOptions): PhpSessionStore {
  const format = options.serializeHandler ?? PHP_SESSION_DEFAULTS.serializeHandler;
  const cookieName = options.name ?? PHP_SESSION_DEFAULTS.name;
  const gcMaxLifetimeSeconds = options.gcMaxLifetimeSeconds ?? PHP_SESSION_DEFAULTS.gcMaxLifetimeSeconds;
  const userKey = options.userKey ?? PHP_SESSION_DEFAULTS.userKey;
  const touch = options.touch ?? PHP_SESSION_DEFAULTS.touch;
  const maxBytes = options.maxBytes ?? PHP_SESSION_DEFAULTS.maxBytes;
  const now = options.now ?? Date.now;
  const report = options.onProblem ?? (() => undefined);
  const reportRepeated = rateLimitedReport(report, REPEATED_PROBLEM_EVERY_MS, now);
  const { activityKey, idleSeconds } = options;
  const handlers = options.handlers ?? SAVE_HANDLERS;
  const [problem] = phpSettingsProblems(options, handlers);
  if (problem) throw new PhpSessionConfigError(problem.line);
  const handler = saveHandlerNamed(options.saveHandler, handlers)!;

  const store = openedLater(
    handler,
    opening(handler, options, {
      gcMaxLifetimeSeconds,
      maxBytes,
      // Waiters cost a descriptor and a timer each (no process): the bound keeps a stuck PHP from piling up thousands.
      lockWaiters: options.lockWaiters ?? PHP_SESSION_DEFAULTS.lockWaiters,
      now,
      report,
      ...(options.onLockWaiters ? { onLockWaiters: options.onLockWaiters } : {}),
      ...(options.onConnectionError ? { onConnectionError: options.onConnectionError } : {}),
    }),
  );
  // Only what the service uses is built; every other value is checked and stepped over.
  const used: ReadonlySet<string> = new Set(activityKey === undefined ? [userKey] : [userKey, activityKey]);

  /** The session decoded, and when its expiry last moved if the store says. */
  async function load(
    id: string,
    client: string | undefined,
  ): Promise<{ session: DecodedPhpSession; modifiedMs: number | undefined } | undefined> {
    // A hash for a report only: most reads have none to make.
    const hash = () => sessionIdHash(id);
    // An empty or undecodable read that is not final may have caught PHP mid-write: read again, as
    // PHP's lock guarantees it or as PHP's next write leaves it, for as long as one lock wait in all.
    let consistentUntil: number | undefined;
    for (;;) {
      const stored = await store.read(id, consistentUntil === undefined ? { client } : { client, consistentUntil });
      if (stored.kind === 'absent') return undefined;
      if (stored.kind === 'refused') {
        report({ kind: stored.reason, sessionHash: hash(), ...(stored.detail === undefined ? {} : { detail: stored.detail }) });
        return undefined;
      }
      // Made only if reported: the hash is the dearest part of an empty session's request.
      let problem: () => PhpSessionProblem;
      if (stored.bytes.length === 0) {
        problem = () => ({ kind: 'empty', sessionHash: hash() });
      } else {
        try {
          return { session: decodePhpSession(stored.bytes, format, { maxBytes }, used), modifiedMs: stored.modifiedMs };
        } catch (error) {
          if (!(error instanceof PhpSessionDecodeError)) throw error;
          const detail = error.message;
          problem = () => ({ kind: 'undecodable', sessionHash: hash(), detail });
        }
      }
      if (stored.final) {
        reportRepeated(stored.bytes.length === 0 ? 'empty' : 'undecodable', problem);
        return undefined;
      }
      consistentUntil ??= performance.now() + LOCK_WAIT_MS;
      // The store's lock wait ends at the deadline too: this only bounds a store that reads unlocked again.
      if (performance.now() >= consistentUntil) {
        throw new SessionUnavailableError(`the PHP session was caught mid-write for over ${LOCK_WAIT_MS} ms`, { reason: 'locked' });
      }
    }
  }

  let shapeReported = false;
  function userOf(session: DecodedPhpSession): SessionUser | undefined {
    const value = session.vars.get(userKey);
    if (value === undefined) return undefined;
    const user = plainId(value) ?? toSessionUser(toPlain(value));
    // A user key of another shape is most likely a misconfiguration: said once, never with the value.
    if (!user && !shapeReported) {
      shapeReported = true;
      report({
        kind: 'user-shape',
        detail: `"${userKey}" holds ${shapeOf(value)}: expected an array or object with "id", or the id itself (a positive integer or a string of digits)`,
      });
    }
    return user;
  }

  function isIdle(session: DecodedPhpSession, nowSeconds: number): boolean {
    if (activityKey === undefined || idleSeconds === undefined) return false;
    const last = session.vars.get(activityKey);
    // No usable activity time: the PHP app's step could not have passed it either.
    if (typeof last !== 'number' || !Number.isFinite(last)) return true;
    return nowSeconds - last > idleSeconds;
  }

  /** The same data with only the activity value replaced by `nowSeconds`, or undefined to leave it. */
  function withActivity(bytes: Uint8Array, nowSeconds: number, userId: string): Uint8Array | undefined {
    let session: DecodedPhpSession;
    try {
      session = decodePhpSession(bytes, format, { maxBytes }, used);
    } catch {
      return undefined; // Rewritten by PHP into something unreadable: not ours to touch.
    }
    if (userOf(session)?.id !== userId || isIdle(session, nowSeconds)) return undefined;
    const span = session.spans.get(activityKey!);
    const last = session.vars.get(activityKey!);
    if (!span || typeof last !== 'number' || last >= nowSeconds) return undefined;
    // Only a plain int or float is replaced: an `R:` there would renumber every later reference.
    if (!isPlainNumber(bytes, span.start, format)) return undefined;
    return Buffer.concat([bytes.subarray(0, span.start), encodeInt(nowSeconds, format), bytes.subarray(span.end)]);
  }

  async function touchSession(
    id: string,
    { session, modifiedMs }: { session: DecodedPhpSession; modifiedMs: number | undefined },
    userId: string,
    nowSeconds: number,
  ): Promise<void> {
    try {
      if (touch === 'expiry') await store.touchExpiry(id, modifiedMs);
      else if (touch === 'activity' && store.rewrite) {
        // At most one write per session and second: a busy user does not queue transactions.
        const last = session.vars.get(activityKey!);
        if (typeof last === 'number' && last >= nowSeconds) return;
        const result = await store.rewrite(id, (bytes) => withActivity(bytes, nowSeconds, userId));
        if (result === 'unchanged') await store.touchExpiry(id, modifiedMs);
      }
    } catch (error) {
      // The request was answered from a good read: a failed touch is logged, not turned into a 503.
      // The stores' own words name the reason (a database's may quote a value: the id is cut out); of
      // any other error the code only (a file error's message carries the path, and so the id).
      const detail =
        error instanceof SessionUnavailableError
          ? error.message.replaceAll(id, '<session id>')
          : ((error as NodeJS.ErrnoException).code ?? (error as Error).message);
      // A read-only directory fails every touch: said once a minute per reason, so another reason still shows.
      reportRepeated(`touch-failed ${detail}`, () => ({ kind: 'touch-failed', sessionHash: sessionIdHash(id), detail }));
    }
  }

  /** The PHP app's own session-control step: its user, idle after `idleSeconds` of the activity key; every good read touches. */
  const control: SessionControl<DecodedPhpSession> = (session, at): SessionCheck => {
    const user = session ? userOf(session) : undefined;
    if (!session || !user) return { user: undefined, expired: false, touch: false };
    if (isIdle(session, Math.floor(at / 1000))) return { user: undefined, expired: true, touch: false };
    return { user, expired: false, touch: true };
  };

  return {
    kind: 'php',
    handler: handler.name,
    mode: handler.mode,
    logName: handler.logName,
    cookieName,
    sessionFor(cookieHeader, client) {
      const id = sessionIdFromCookies(cookieHeader, cookieName);
      if (id === undefined) return NO_SESSION;
      let loaded: Awaited<ReturnType<typeof load>>;
      // The same control step as the service's own sessions; the store is the PHP app's, so an idle
      // session is reported and answered as signed out, never deleted.
      return controlledSession(
        {
          read: async () => (loaded = await load(id, client))?.session,
          expire: () => report({ kind: 'idle', sessionHash: sessionIdHash(id) }),
          touch: (at) => touchSession(id, loaded!, userOf(loaded!.session)!.id, Math.floor(at / 1000)),
        },
        control,
        now,
      );
    },
    ready: (timeoutMs) => store.ready(timeoutMs),
    ping: () => store.ping(),
    describe() {
      const control = activityKey === undefined ? 'no idle check' : `idle after ${idleSeconds} s of "${activityKey}"`;
      return `PHP sessions: ${store.describe()}, serializer ${format}, cookie ${cookieName}, user key "${userKey}", ${control}, touch ${touch}`;
    },
    close: () => store.close(),
  };
}

/** The handler's store opening: a refusal it makes before importing anything is a start-up error. */
function opening(handler: PhpSaveHandlerEntry, options: PhpSessionsOptions, context: SaveHandlerContext): Promise<PhpSaveHandlerStore> {
  // The handler's own defaults fill what the options leave unset.
  const settings: Record<string, unknown> = { ...options };
  for (const [key, value] of Object.entries(handler.defaults)) settings[key] ??= value;
  try {
    return handler.open(settings as unknown as PhpSessionSettings, context);
  } catch (error) {
    throw new PhpSessionConfigError((error as Error).message);
  }
}

/**
 * The store while its module loads (an import of its client, once): every call waits for it. A store
 * that failed to load fails each call as unavailable, and `ready` with the reason.
 */
function openedLater(handler: PhpSaveHandlerEntry, store: Promise<PhpSaveHandlerStore>): PhpSaveHandlerStore {
  let opened: PhpSaveHandlerStore | undefined;
  const loaded = store.then(
    (value) => (opened = value),
    (error: unknown) => {
      throw new SessionUnavailableError(`the ${handler.name} handler did not load: ${(error as Error).message}`);
    },
  );
  loaded.catch(() => undefined);
  return {
    read: async (id, options) => (opened ?? (await loaded)).read(id, options),
    touchExpiry: async (id, modifiedMs) => (opened ?? (await loaded)).touchExpiry(id, modifiedMs),
    async rewrite(id, change) {
      const store = opened ?? (await loaded);
      // Asked only in `activity` mode, which `files` refuses at start-up; another handler without it fails the touch, reported.
      if (!store.rewrite) throw new SessionUnavailableError(`the ${handler.name} handler cannot rewrite a session`);
      return store.rewrite(id, change);
    },
    ready: async (timeoutMs) => (opened ?? (await loaded)).ready(timeoutMs),
    ping: async () => (opened ?? (await loaded)).ping(),
    describe: () => opened?.describe() ?? `${handler.name} (loading)`,
    close: async () => (await loaded.catch(() => undefined))?.close(),
  };
}

/** `$_SESSION['user_id'] = 17` as many apps keep it: a positive integer, or 1 to 19 ASCII digits as written. */
function plainId(value: PhpValue): SessionUser | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return { id: String(value) };
  if (typeof value === 'bigint' && value > 0n) return { id: value.toString() };
  if (typeof value === 'string' && /^[0-9]{1,19}$/.test(value)) return { id: value };
  return undefined;
}

/** What a value is, for a log line: its PHP type, never its content. */
function shapeOf(value: PhpValue): string {
  if (value === null) return 'null';
  if (value instanceof Map) return 'an array without "id"';
  if (typeof value === 'object') return value.kind === 'enum' ? 'an enum case' : 'an object without "id"';
  if (typeof value === 'string') return 'a string that is not an id';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer below 1' : 'a float';
  return typeof value === 'bigint' ? 'an integer below 1' : 'a bool';
}
