import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Log } from '@cotizaciones/runtime';
import { logHttpError } from './http/log-http-error.js';
import { sliceReads } from './http/sliced-reads.js';
import { turnBudget } from './http/turn-budget.js';
import { setConnection, writeRefusal, writeSocketRefusal, type RefusalStatus } from './http/answers.js';

/** How long a client may take, and how many may be connected at once. */
export interface ServerLimits {
  /** From the first byte of a request to the end of its headers. */
  readonly headersTimeoutMs: number;
  /** From the first byte of a request to the end of its body. */
  readonly requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  readonly keepAliveTimeoutMs: number;
  /** Connections beyond this are closed as soon as they are accepted. */
  readonly maxConnections: number;
}

export interface HttpServer {
  readonly server: Server;
  /** From now on every answer, including those in progress but not yet started, carries `Connection: close`. */
  closeEachConnectionAfterItsAnswer(): void;
  /** Open connections, and how many of them carry a request not yet answered (parsed or not). */
  connections(): { open: number; busy: number };
  /**
   * Destroys the connections that carry nothing: no request in progress and no byte
   * read for `idleMs` (as seen by the calls to this function). A request whose bytes had
   * arrived would have been read in that time, so none is cut off; a client slow to
   * send its first request after connecting gets that long too.
   */
  closeIdle(idleMs: number): number;
}

/**
 * Requests an event-loop turn starts in its I/O phase, and again at its end (`turnBudget`). 8: in
 * `npm run bench` (64 connections, interleaved A/B) the got service +27 % req/s and the undici one
 * +9 %, and the got service's slowest answer at 256 new connections 2.5 s instead of 6.6–9.8 s.
 */
const REQUESTS_STARTED_PER_TURN = 8;

/** The most of one read the HTTP parser takes at a time (`sliceReads`): a browser's request fits in one slice. */
const READ_SLICE_BYTES = 4_096;

/** The refusal the HTTP layer answers for what its parser refused (the messages are the answer module's). */
function statusFor(error: NodeJS.ErrnoException): RefusalStatus {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return 431;
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return 413;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 408;
    case 'HPE_INVALID_VERSION':
      return 505;
    default:
      return 400;
  }
}

interface ConnectionState {
  /** Answers not finished yet. */
  readonly responses: Set<ServerResponse>;
  /** `socket.bytesRead` when the last answer finished: more read since means a request is arriving. */
  readMark: number;
  /** `socket.bytesRead` at the last sweep, and since when (ms) it has not moved with no request in progress. */
  seenBytes: number;
  idleSince: number;
}

/**
 * Answers a request and returns true, or returns false to leave it to the line (the probes: `probesAheadOfLine`).
 * It must be cheap whatever the request holds: it runs outside the line's budget.
 */
export type AheadOfLine = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * The Node HTTP server the service listens with: its time limits and connection cap,
 * the contract's answer to requests the parser refuses, and the connection
 * bookkeeping a drain needs (Node's own `closeIdleConnections` also destroys
 * connections whose request has arrived but is not parsed yet). `aheadOfLine` is offered
 * a request with nothing else in progress on its connection before the request takes the
 * fair-share line; a pipelined one waits its connection's turn, so a connection gets at most
 * one request a read past the line, and its answers stay in order.
 */
export function createHttpServer(
  handler: RequestListener,
  limits: ServerLimits,
  log: Pick<Log, 'debug' | 'error'>,
  aheadOfLine?: AheadOfLine,
): HttpServer {
  const sockets = new Map<Socket, ConnectionState>();
  let closeAfterAnswer = false;
  const start = turnBudget(handler, {
    perTurn: REQUESTS_STARTED_PER_TURN,
    // One request per connection waits in line at most: the cap on connections bounds the line.
    maxWaiting: limits.maxConnections,
    onGone: (req) => log.debug({ method: req.method }, 'request not started: its client left while it waited'),
    // Above any client's honest pipelining (browsers and nginx send none); one read of small requests can hold a thousand.
    maxPipelined: 64,
    onFull: (_req, res) => writeRefusal(res, 503, { 'Retry-After': '1' }),
  });

  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // Node checks the two limits above on this interval (default 30 s, which let a slow client run 50% over).
      connectionsCheckingInterval: Math.max(25, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // HTTP/1.1 without Host is refused below, in the contract's shape; Node's own refusal has none of its headers.
      requireHostHeader: false,
    },
    (req: IncomingMessage, res: ServerResponse) => {
      const state = sockets.get(req.socket);
      if (state) {
        state.responses.add(res);
        res.once('close', () => {
          state.responses.delete(res);
          state.readMark = req.socket.bytesRead;
        });
      }
      if (closeAfterAnswer) closeAfterLast(state?.responses ?? [res]);
      if (req.httpVersion === '1.1' && req.headers.host === undefined) {
        writeRefusal(res, 400);
        return;
      }
      if (aheadOfLine && state?.responses.size === 1 && aheadOfLine(req, res)) return;
      start(req, res);
    },
  );
  server.maxConnections = limits.maxConnections;
  // Before the server's own listener, which hands the socket to its parser.
  server.prependListener('connection', (socket: Socket) => sliceReads(socket, READ_SLICE_BYTES));

  server.on('connection', (socket: Socket) => {
    sockets.set(socket, { responses: new Set(), readMark: 0, seenBytes: 0, idleSince: Date.now() });
    socket.once('close', () => sockets.delete(socket));
  });

  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    logHttpError(log, error, 'request refused by the HTTP parser');
    const started = [...(sockets.get(socket)?.responses ?? [])].some((res) => res.headersSent);
    // Answer only when nothing of an answer went out yet: bytes after a started one would corrupt it.
    if (socket.writable && !started) writeSocketRefusal(socket, statusFor(error));
    socket.destroySoon();
  });

  const busy = (socket: Socket, state: ConnectionState) => state.responses.size > 0 || socket.bytesRead > state.readMark;

  return {
    server,
    closeEachConnectionAfterItsAnswer() {
      closeAfterAnswer = true;
      for (const state of sockets.values()) closeAfterLast(state.responses);
    },
    connections() {
      let count = 0;
      for (const [socket, state] of sockets) if (busy(socket, state)) count += 1;
      return { open: sockets.size, busy: count };
    },
    closeIdle(idleMs) {
      const now = Date.now();
      let closed = 0;
      for (const [socket, state] of sockets) {
        if (busy(socket, state) || state.seenBytes !== socket.bytesRead) {
          state.seenBytes = socket.bytesRead;
          state.idleSince = now;
        } else if (now - state.idleSince >= idleMs) {
          socket.destroy();
          closed += 1;
        }
      }
      return closed;
    },
  };
}

/**
 * Only the last answer of a connection says `Connection: close`: Node ends the connection after an
 * answer that does, and the pipelined requests received behind it would go unanswered. An answer
 * marked here as the last before another request came behind it is kept alive again (removing the
 * header would also remove Node's own `keep-alive`); a `close` set for another reason stays.
 */
function closeAfterLast(responses: Iterable<ServerResponse>): void {
  const pending = [...responses].filter((res) => !res.headersSent);
  for (const res of pending.slice(0, -1)) {
    if (markedLast.delete(res)) setConnection(res, 'keep-alive');
  }
  const last = pending.at(-1);
  if (last && !last.hasHeader('Connection')) {
    setConnection(last, 'close');
    markedLast.add(last);
  }
}

const markedLast = new WeakSet<ServerResponse>();
