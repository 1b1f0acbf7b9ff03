import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TokenRequest {
  readonly authorization: string | undefined;
  readonly form: Record<string, string>;
}

export interface StubTokenEndpoint {
  readonly url: string;
  readonly requests: TokenRequest[];
  /** Each answer issues `token-1`, `token-2`, …; `fail` answers 503 instead. */
  configure(options: { expiresIn?: number | undefined; delayMs?: number; fail?: boolean }): void;
  close(): Promise<void>;
}

/** An OAuth2 token endpoint on loopback that issues numbered tokens. */
export async function startStubTokenEndpoint(): Promise<StubTokenEndpoint> {
  const requests: TokenRequest[] = [];
  let settings: { expiresIn?: number | undefined; delayMs?: number; fail?: boolean } = { expiresIn: 3600 };
  let issued = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      requests.push({ authorization: req.headers.authorization, form: Object.fromEntries(new URLSearchParams(body)) });
      const answer = () => {
        if (settings.fail) {
          res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"temporarily_unavailable"}');
          return;
        }
        issued += 1;
        const token = {
          access_token: `token-${issued}`,
          token_type: 'Bearer',
          ...(settings.expiresIn === undefined ? {} : { expires_in: settings.expiresIn }),
        };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(token));
      };
      if (settings.delayMs) setTimeout(answer, settings.delayMs);
      else answer();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/token`,
    requests,
    configure(next) {
      settings = next;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
