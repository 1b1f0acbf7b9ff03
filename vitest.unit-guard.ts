import childProcess from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

/**
 * Set-up file of the in-process tiers, `unit` and `http` (vitest.tiers.ts): their tests stay in this
 * process. Starting a
 * process, or connecting to a socket that no server of this process listens on (a database, Redis,
 * PHP), throws, naming the tier the test belongs in. Allowed: servers this process listens on (a
 * stub upstream, an app on a port, Pact's native mock server); port 1, where nothing listens, and
 * `.invalid` names, which never resolve (RFC 6761): the tests of "unreachable".
 */
const MOVE = 'a test that starts a process or uses a real service belongs in `*.int.test.ts` (or `*.process.test.ts`)';

const servers = new Set<net.Server>();
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (this: net.Server, ...args: unknown[]) {
  servers.add(this);
  this.once('close', () => servers.delete(this));
  return (listen as (...a: unknown[]) => net.Server).apply(this, args);
} as typeof listen;

function ownServer(target: Target): boolean {
  if (target.port === REFUSED_PORT || target.host?.endsWith('.invalid')) return true;
  for (const server of servers) {
    const address = server.address();
    if (address === null) continue;
    if (typeof address === 'string' ? address === target.path : address.port === target.port) return true;
  }
  return target.port !== undefined && listeningPorts().has(target.port);
}

/** Where a test of "connection refused" or "unknown name" points: nothing listens there, no name resolves. */
const REFUSED_PORT = 1;

interface Target {
  port?: number;
  path?: string;
  host?: string;
}

/** TCP ports a socket of this process listens on, native servers included (Linux's /proc; none elsewhere). */
function listeningPorts(): Set<number> {
  const ports = new Set<number>();
  try {
    const inodes = new Set<string>();
    for (const fd of readdirSync('/proc/self/fd')) {
      const socket = /^socket:\[(\d+)\]$/.exec(safeReadlink(`/proc/self/fd/${fd}`));
      if (socket?.[1] !== undefined) inodes.add(socket[1]);
    }
    for (const table of ['/proc/self/net/tcp', '/proc/self/net/tcp6']) {
      for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
        const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
        if (state === '0A' && inode !== undefined && inodes.has(inode) && local !== undefined)
          ports.add(parseInt(local.split(':')[1] ?? '', 16));
      }
    }
  } catch {
    // Not Linux: only the servers made with node:net count.
  }
  return ports;
}

function safeReadlink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}

/** The port or socket path of a `Socket.prototype.connect` call, in any of its forms. */
function connectTarget(args: unknown[]): Target {
  let first = args[0];
  if (Array.isArray(first)) first = first[0];
  if (typeof first === 'number') return { port: first };
  if (typeof first === 'string') return /^\d+$/.test(first) ? { port: Number(first) } : { path: first };
  const options = (first ?? {}) as { port?: number | string; path?: string | null; host?: string };
  if (typeof options.path === 'string') return { path: options.path };
  return { port: Number(options.port), ...(options.host === undefined ? {} : { host: options.host }) };
}

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
  const target = connectTarget(args);
  if (!ownServer(target)) {
    const where = target.path ?? `port ${target.port}`;
    throw new Error(`in-process tier (unit, http): a connection to ${where}, which no server of this test listens on: ${MOVE}`);
  }
  return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
} as typeof connect;

const spawners = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
for (const name of spawners) {
  (childProcess as unknown as Record<string, unknown>)[name] = (command: unknown) => {
    throw new Error(`in-process tier (unit, http): child_process.${name}(${JSON.stringify(command)}): ${MOVE}`);
  };
}
// The ESM view of node:child_process (`import { spawn } from …`) follows the patched functions.
syncBuiltinESMExports();
