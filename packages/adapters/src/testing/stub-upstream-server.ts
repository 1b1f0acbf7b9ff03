import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The client's port: one per connection. */
  readonly remotePort: number | undefined;
}

/** How the stub answers one request; `delayMs` holds the answer back that long. */
export type StubAnswer =
  | { readonly status?: number; readonly json: unknown; readonly delayMs?: number }
  | { readonly status?: number; readonly contentType?: string; readonly text: string | Buffer; readonly delayMs?: number }
  /** Closes the socket without answering. */
  | { readonly drop: true }
  /** Sends the headers and part of a JSON body, then resets the connection. */
  | { readonly reset: true }
  /** Never answers. */
  | { readonly hang: true }
  /** Sends the headers at once, then one byte of a JSON body every `dripMs`, never finishing. */
  | { readonly dripMs: number };

export interface StubUpstreamServer {
  readonly url: string;
  /**
   * An https:// URL on loopback whose server accepts the TCP connection and never answers the TLS
   * handshake: a client's connection to it is never established.
   */
  readonly stalledConnectUrl: string;
  readonly received: ReceivedRequest[];
  /** Sets the answer for the following requests (default `{"ok":true}`). */
  answer(next: StubAnswer | ((request: ReceivedRequest) => StubAnswer)): void;
  close(): Promise<void>;
}

/** A real HTTP server on loopback that records what it receives and answers as scripted. */
export async function startStubUpstream(): Promise<StubUpstreamServer> {
  const received: ReceivedRequest[] = [];
  let script: (request: ReceivedRequest) => StubAnswer = () => ({ json: { ok: true } });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort,
      };
      received.push(request);
      const answer = script(request);
      const delayMs = 'delayMs' in answer ? (answer.delayMs ?? 0) : 0;
      if (delayMs > 0) setTimeout(() => respond(answer), delayMs);
      else respond(answer);
    });
    function respond(answer: StubAnswer): void {
      if ('drop' in answer) {
        req.socket.destroy();
      } else if ('reset' in answer) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"ok":tr');
        setTimeout(() => req.socket.resetAndDestroy(), 20);
      } else if ('hang' in answer) {
        // Left open until the client gives up or the server closes.
      } else if ('dripMs' in answer) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"ok":true,"pad":"');
        const drip = setInterval(() => res.write('x'), answer.dripMs);
        res.on('close', () => clearInterval(drip));
      } else if ('json' in answer) {
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' }).end(JSON.stringify(answer.json));
      } else {
        res.writeHead(answer.status ?? 200, { 'content-type': answer.contentType ?? 'text/plain' }).end(answer.text);
      }
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  // Holds each connection and reads nothing: the client's TLS ClientHello is never answered.
  const silent = new Set<Socket>();
  const stalled = createTcpServer((socket) => {
    silent.add(socket);
    socket.on('close', () => silent.delete(socket));
  });
  stalled.listen(0, '127.0.0.1');
  await once(stalled, 'listening');
  return {
    url: `http://127.0.0.1:${port}`,
    stalledConnectUrl: `https://127.0.0.1:${(stalled.address() as AddressInfo).port}`,
    received,
    answer(next) {
      script = typeof next === 'function' ? next : () => next;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      for (const socket of silent) socket.destroy();
      stalled.close();
      await Promise.all([once(server, 'close'), once(stalled, 'close')]);
    },
  };
}
