import { readFileSync } from 'node:fs';
import { connect } from 'node:net';

export interface StreamedPost {
  readonly path: string;
  readonly contentType: string;
  readonly cookie?: string | undefined;
  /** The first bytes of the body (a multipart part's headers, `value=`); the rest is `filler` up to `totalBytes`. */
  readonly head: string;
  readonly filler: number;
  readonly totalBytes: number;
  /** Declare the length up front (Content-Length) or stream it chunked. */
  readonly framing: 'content-length' | 'chunked';
  /** The client gives up after this long, whatever happened. */
  readonly deadlineMs: number;
}

export interface StreamedResult {
  /** The answer as a fetch Response (status, headers, body), or undefined when none arrived. */
  readonly response: Response | undefined;
  /** How many body bytes the client managed to send. */
  readonly sentBytes: number;
  /** The server ended the connection (FIN or reset) before the client's deadline. */
  readonly connectionEnded: boolean;
  /** What the socket saw, in order (for a failing assertion's message). */
  readonly events: string[];
}

const CHUNK = 64 * 1024;

/**
 * A client that keeps sending a body of `totalBytes` on a raw socket whatever
 * the server answers, as a hostile client would, until the server ends the
 * connection, the body is all sent, or the deadline passes.
 */
export function streamPost(origin: string, post: StreamedPost): Promise<StreamedResult> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const received: Buffer[] = [];
    const filler = Buffer.alloc(CHUNK, post.filler);
    let sent = 0;
    let ended = false;
    const events: string[] = [];
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(deadline);
      socket.destroy();
      resolve({ response: parseResponse(Buffer.concat(received)), sentBytes: sent, connectionEnded: ended, events });
    };
    const deadline = setTimeout(finish, post.deadlineMs);
    const frame = (bytes: Buffer) =>
      post.framing === 'chunked' ? Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]) : bytes;
    // One chunk per turn of the event loop, so the answer is read while the body is still being
    // sent, as a browser does. A loop of writes the kernel takes at once never yields: such a client
    // sent the server's whole lingering allowance without reading, and lost the answer to the reset.
    const pump = () => {
      if (ended || finished || !socket.writable) return;
      if (sent >= post.totalBytes) {
        if (post.framing === 'chunked') socket.write('0\r\n\r\n');
        return;
      }
      const bytes = sent + CHUNK > post.totalBytes ? filler.subarray(0, post.totalBytes - sent) : filler;
      sent += bytes.length;
      if (socket.write(frame(bytes))) setImmediate(pump);
      else socket.once('drain', pump);
    };
    socket.on('data', (chunk: Buffer) => {
      events.push(`data ${chunk.length} after ${sent}`);
      received.push(chunk);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => events.push(`error ${error.code} after ${sent}`));
    socket.on('end', () => {
      events.push(`end after ${sent}`);
      ended = true;
      finish();
    });
    socket.on('close', () => {
      events.push('close');
      ended = true;
      finish();
    });
    socket.on('connect', () => {
      const head = Buffer.from(post.head);
      const length = post.framing === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${post.totalBytes}`;
      socket.write(
        `POST ${post.path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: ${post.contentType}\r\n${length}\r\n${post.cookie ? `Cookie: ${post.cookie}\r\n` : ''}\r\n`,
      );
      sent += head.length;
      socket.write(frame(head));
      pump();
    });
  });
}

function parseResponse(raw: Buffer): Response | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const headers = new Headers();
  for (const line of lines) headers.append(line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim());
  const length = Number(headers.get('content-length') ?? 0);
  return new Response(raw.subarray(end + 4, end + 4 + length), { status: Number(statusLine.split(' ')[1]), headers });
}

/** Resident set size of a process (MiB), now and at its peak, as the kernel counts them. */
export function memoryOf(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN);
  return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
}
