import type { Socket } from 'node:net';
import proxyAddr from 'proxy-addr';
import type { RequestContext } from './request-state.js';

/**
 * Who may speak for the client (`TRUST_PROXY`): the proxies' addresses, CIDR ranges and the names
 * `loopback`, `linklocal`, `uniquelocal` (proxy-addr's, as Express's `trust proxy`), or a number of
 * hops, which trusts whoever connects. Empty or 0: nobody.
 */
export type TrustProxy = number | readonly string[];

/** Whether the hop-th address from the service (0: the peer, then X-Forwarded-For from the right) is a trusted proxy. */
export type Trust = (address: string, hop: number) => boolean;

/** The setting as proxy-addr's check; undefined when it trusts nobody. Throws a TypeError naming an entry that is no address, range or name. */
export function compileTrust(setting: TrustProxy): Trust | undefined {
  if (typeof setting === 'number') return setting > 0 ? (_, hop) => hop < setting : undefined;
  return setting.length > 0 ? proxyAddr.compile([...setting]) : undefined;
}

// Koa reads these once `app.proxy` is set: the client IP, ctx.protocol (Secure cookies) and ctx.host.
const FORWARDED = ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host'] as const;

/**
 * Decides, before anything reads a header, whether the request came through a trusted proxy: the peer
 * (the socket's remote address) is one. Then the client IP is the address the last trusted proxy saw
 * (X-Forwarded-For walked from the right while the hop is trusted), and the request id and trace
 * context it sent are taken (`ctx.state.trustedPeer`). From any other peer the X-Forwarded-* headers
 * are dropped, so Koa sees only the connection, and the client IP is the peer's address.
 */
export function admitProxyHeaders(trust: Trust): (ctx: RequestContext) => void {
  // A connection's peer never changes, and a proxy keeps its connections open: checked once per connection.
  const peers = new WeakMap<Socket, boolean>();
  // The walk starts at the peer, already checked: only the X-Forwarded-For hops are left to test.
  const walk: Trust = (address, hop) => hop === 0 || trust(address, hop);
  return (ctx) => {
    const { req } = ctx;
    const { socket } = req;
    const peer = socket.remoteAddress ?? '';
    let trusted = peers.get(socket);
    if (trusted === undefined) {
      trusted = trust(peer, 0);
      peers.set(socket, trusted);
    }
    ctx.state.trustedPeer = trusted;
    if (trusted) {
      ctx.request.ip = proxyAddr(req, walk);
      return;
    }
    for (const name of FORWARDED) if (req.headers[name] !== undefined) delete req.headers[name];
    ctx.request.ip = peer;
  };
}
