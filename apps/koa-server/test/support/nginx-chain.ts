import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@cotizaciones/adapters/testing';

const PROXY_CONF = fileURLToPath(new URL('../../../../deploy/cotizaciones-proxy.conf', import.meta.url));

export const nginxAvailable = spawnSync('nginx', ['-v']).status === 0;
if (!nginxAvailable) console.warn('\n[nginx tests] SKIPPING the tests through a real nginx: none on the PATH\n');

/**
 * `hops` nginx reverse proxies in a row in front of `servicePort`, each configured as docs/operations.md's
 * (`X-Forwarded-For $proxy_add_x_forwarded_for`). Hop k connects to the next from 127.0.0.(10+k),
 * so each hop's address shows in X-Forwarded-For. Returns the outermost proxy's URL.
 */
export async function startNginxChain(servicePort: number, hops: number) {
  const dir = mkdtempSync(join(tmpdir(), 'nginx-chain-'));
  const ports = await Promise.all(Array.from({ length: hops }, freePort));
  const servers = ports.map((port, k) => {
    const next = k + 1 < hops ? ports[k + 1] : servicePort;
    return `server {
      listen 127.0.0.1:${port};
      location / {
        proxy_pass http://127.0.0.1:${next};
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        ${k + 1 < hops ? `proxy_bind 127.0.0.${11 + k};` : ''}
      }
    }`;
  });
  return runNginx(dir, servers.join('\n'), ports);
}

/**
 * One nginx in front of `servicePort`, proxying as the repository's deploy/cotizaciones-proxy.conf
 * says (its `X-Request-Id $request_id`, its retry settings).
 */
export async function startNginxWithProxyConf(servicePort: number) {
  const dir = mkdtempSync(join(tmpdir(), 'nginx-proxy-'));
  const port = await freePort();
  writeFileSync(join(dir, 'cotizaciones-proxy.conf'), readFileSync(PROXY_CONF));
  return runNginx(
    dir,
    `upstream cotizaciones_service { server 127.0.0.1:${servicePort}; keepalive 4; }
      server { listen 127.0.0.1:${port}; location / { include ${dir}/cotizaciones-proxy.conf; } }`,
    [port],
  );
}

/** nginx run from `dir` with `servers` in its http block, once it listens on every port; its URL is the first port's. */
async function runNginx(dir: string, servers: string, ports: readonly number[]) {
  writeFileSync(
    join(dir, 'nginx.conf'),
    `daemon off; master_process off; pid ${dir}/nginx.pid; error_log ${dir}/error.log;
    events {}
    http {
      access_log off;
      client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
      uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
      ${servers}
    }`,
  );
  const child = spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], { stdio: 'ignore' });
  for (const port of ports) await untilListening(port);
  return {
    url: `http://127.0.0.1:${ports[0]}`,
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function untilListening(port: number): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = createConnection(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`nginx did not listen on ${port}`);
}
