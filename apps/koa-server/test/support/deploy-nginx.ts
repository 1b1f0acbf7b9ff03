import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@cotizaciones/adapters/testing';

export const NGINX = '/usr/sbin/nginx';
export const nginxInstalled = existsSync(NGINX);
const DEPLOY = fileURLToPath(new URL('../../../../deploy/', import.meta.url));

/** Replaces `from` in `text`, failing if it is not there: a recipe that changed must fail the test, not be tested half. */
function replaceOrFail(text: string, from: string | RegExp, to: string, file: string): string {
  const replaced = text.replace(from, to);
  if (replaced === text) throw new Error(`deploy/${file} no longer holds ${String(from)}`);
  return replaced;
}

/**
 * The repository's own deploy/nginx.conf and its two includes, unchanged but for the instances'
 * hosts (rewritten to loopback ports) and the listen address, run from a temporary folder: what a
 * test through it sees is what the documented deployment does.
 */
export async function startDeployNginx(instancePorts: readonly [number, number]) {
  const dir = mkdtempSync(join(tmpdir(), 'nginx-'));
  const listen = await freePort();
  const read = (file: string) => readFileSync(join(DEPLOY, file), 'utf8');
  let upstream = replaceOrFail(
    read('cotizaciones-upstream.conf'),
    'server app1:3000',
    `server 127.0.0.1:${instancePorts[0]}`,
    'cotizaciones-upstream.conf',
  );
  upstream = replaceOrFail(upstream, 'server app2:3000', `server 127.0.0.1:${instancePorts[1]}`, 'cotizaciones-upstream.conf');
  writeFileSync(join(dir, 'cotizaciones-upstream.conf'), upstream);
  writeFileSync(join(dir, 'cotizaciones-proxy.conf'), read('cotizaciones-proxy.conf'));
  writeFileSync(
    join(dir, 'cotizaciones.conf'),
    replaceOrFail(read('nginx.conf'), /listen 80;/, `listen 127.0.0.1:${listen};`, 'nginx.conf'),
  );
  const temp = join(dir, 'tmp');
  mkdirSync(temp);
  chmodSync(temp, 0o777);
  writeFileSync(
    join(dir, 'nginx.conf'),
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${temp}/body;
  proxy_temp_path ${temp}/proxy;
  fastcgi_temp_path ${temp}/fastcgi;
  uwsgi_temp_path ${temp}/uwsgi;
  scgi_temp_path ${temp}/scgi;
  include ${dir}/cotizaciones.conf;
}
`,
  );
  const child = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = `http://127.0.0.1:${listen}`;
  const deadline = Date.now() + 10_000;
  while (
    !(await fetch(`${url}/`).then(
      (response) => response.status > 0,
      () => false,
    ))
  ) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
      throw new Error('nginx did not answer within 10 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    url,
    /** nginx's error log, line by line: what it saw of the instances (resets, retries, failures). */
    errorLog: () => readFileSync(join(dir, 'error.log'), 'utf8').split('\n'),
    async stop() {
      // SIGTERM: the master stops its worker too (a killed master leaves the worker running).
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
