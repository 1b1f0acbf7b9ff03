import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  /** Everything the server sent before it closed (or before the wait ended). */
  readonly raw: string;
  /** The server closed the connection (FIN or reset). */
  readonly closed: boolean;
  /** The connection was reset rather than closed cleanly. */
  readonly reset: boolean;
  readonly status: number | undefined;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Milliseconds from the first byte sent to the close (or the end of the wait). */
  readonly elapsedMs: number;
}

/**
 * Every final answer in `raw`, in order (each framed by its Content-Length), and the status lines of
 * interim 1xx answers (no body; Node sends `100 Continue` itself for `Expect: 100-continue`);
 * what cannot be read as either is returned as `rest`.
 */
export function splitAnswers(raw: string): { answers: Array<ReturnType<typeof parseAnswer>>; interim: string[]; rest: string } {
  const answers: Array<ReturnType<typeof parseAnswer>> = [];
  const interim: string[] = [];
  let rest = raw;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    const interimLine = /^HTTP\/1\.[01] 1(?!01)\d\d [^\r\n]*/.exec(rest)?.[0];
    if (interimLine !== undefined && end === interimLine.length) {
      interim.push(interimLine);
      rest = rest.slice(end + 4);
      continue;
    }
    const length = /\r\ncontent-length: *(\d+)/i.exec(rest.slice(0, end))?.[1];
    if (!rest.startsWith('HTTP/') || end < 0 || length === undefined || rest.length < end + 4 + Number(length))
      return { answers, interim, rest };
    answers.push(parseAnswer(rest.slice(0, end + 4 + Number(length))));
    rest = rest.slice(end + 4 + Number(length));
  }
}

/** Splits one HTTP/1.1 answer (read as latin1) into status, lower-cased headers and the UTF-8 body (ours send Content-Length, never chunks). */
export function parseAnswer(raw: string): Pick<RawAnswer, 'status' | 'headers' | 'body'> {
  const end = raw.indexOf('\r\n\r\n');
  if (!raw.startsWith('HTTP/') || end < 0) return { status: undefined, headers: {}, body: '' };
  const [statusLine = '', ...lines] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: Buffer.from(raw.slice(end + 4), 'latin1').toString('utf8') };
}

/**
 * Opens a TCP connection, writes `chunks` (a delay before each one when given as
 * `{ delayMs, data }`), and collects what comes back until the server closes or
 * `waitMs` passes after the last write (`halfClose`: then also ends the sending side).
 */
export function rawExchange(
  url: string,
  chunks: Array<string | Buffer | { delayMs: number; data: string | Buffer }>,
  waitMs = 2_000,
  { halfClose = false } = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(port), hostname);
    const received: Buffer[] = [];
    let reset = false;
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const started = Date.now();
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(received).toString('latin1');
      resolve({ raw, closed, reset, ...parseAnswer(raw), elapsedMs: Date.now() - started });
    };
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      reset = error.code === 'ECONNRESET' || error.code === 'EPIPE';
      finish(true);
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.once('connect', () => {
      void (async () => {
        for (const chunk of chunks) {
          if (done) return;
          if (typeof chunk === 'object' && !Buffer.isBuffer(chunk)) {
            await new Promise((r) => setTimeout(r, chunk.delayMs));
            if (done) return;
            socket.write(chunk.data);
          } else {
            socket.write(chunk);
          }
        }
        // Half-closing tells the server nothing more is coming: a partial request is then an error it must answer.
        if (halfClose) socket.end();
        timer = setTimeout(() => finish(false), waitMs);
      })();
    });
  });
}
