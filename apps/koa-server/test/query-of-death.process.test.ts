import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  iniFlags,
  missing,
  missingPhp,
  startStubUpstream,
  temporaryDirs,
  type StubUpstreamServer,
} from '@cotizaciones/adapters/testing';
import { nginxInstalled, startDeployNginx } from './support/deploy-nginx.js';
import { startProcess } from './support/process.js';
import { FIELD_PATH, form } from './support/service.js';

const WORST_ID = 'worstSessionOfAllTheSessions01';
const USER_ID = 'ordinarySessionOfAUser00000001';
/** Elements of one 50 KB string that php-igbinary writes once and then by its index: about 600 KB on disk. */
const REPEATS = 95_000;

/** Writes a session through PHP's own files handler and igbinary serializer, as the PHP app would. */
function writeAsPhp(dir: string, id: string, user: string): void {
  const script = `session_id($argv[1]); session_start(); ${user}; session_write_close();`;
  const ini = iniFlags({
    'session.use_strict_mode': '0',
    'session.save_handler': 'files',
    'session.save_path': dir,
    'session.serialize_handler': 'igbinary',
  });
  const run = spawnSync('php', [...ini, '-r', script, id], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`php: ${run.stderr}${run.stdout}`);
}

const tempDir = temporaryDirs();

describe.skipIf(missingPhp('igbinary') || missing('nginx', nginxInstalled))(
  'a session that costs its decoder the most, behind the documented nginx recipe (needs php, php-igbinary, nginx)',
  () => {
    let stub: StubUpstreamServer;
    let nginx: Awaited<ReturnType<typeof startDeployNginx>> | undefined;
    beforeAll(async () => {
      stub = await startStubUpstream();
      stub.answer({ json: { ok: true } });
    });
    afterAll(async () => {
      await nginx?.stop();
      await stub.close();
    });

    it('is answered, and both instances serve the next requests: no crash spreads through nginx’s retry to the second instance', async () => {
      const dir = tempDir('qod-sessions-');
      writeAsPhp(dir, WORST_ID, `$s = str_repeat('x', 50000); $_SESSION['user'] = ['id' => 7, 'extra' => array_fill(0, ${REPEATS}, $s)]`);
      writeAsPhp(dir, USER_ID, `$_SESSION['user'] = ['id' => 8, 'nombre' => 'Ana']`);
      const bytes = statSync(join(dir, `sess_${WORST_ID}`)).size;
      expect(bytes).toBeGreaterThan(500_000);
      expect(bytes).toBeLessThan(1024 * 1024); // within PHP_SESSION_MAX_BYTES: not refused by its size

      const ports: [number, number] = [await freePort(), await freePort()];
      const env = (port: number) => ({
        PORT: String(port),
        SESSION_STORE: 'php',
        PHP_SESSION_SAVE_HANDLER: 'files',
        PHP_SESSION_SAVE_PATH: dir,
        PHP_SESSION_SERIALIZE_HANDLER: 'igbinary',
        UPSTREAM_BASE_URL: stub.url,
        UPSTREAM_TOKEN: 't',
        ACTIVITY_LOG_URL: 'memory:',
        TRUST_PROXY: '127.0.0.1',
        // A container's memory limit: a decoder that builds what the session refers to, not what it holds, dies here in seconds.
        NODE_OPTIONS: '--max-old-space-size=512',
      });
      const instances = [await startProcess(env(ports[0])), await startProcess(env(ports[1]))];
      nginx = await startDeployNginx(ports);

      const post = (base: string, id: string) =>
        fetch(`${base}${FIELD_PATH}`, {
          method: 'POST',
          body: form({ id: '12', field: 'estado', value: 'x' }),
          headers: { cookie: `PHPSESSID=${id}` },
        }).then(async (response) => `${response.status} ${await response.text()}`);

      const started = performance.now();
      const worst = await post(nginx.url, WORST_ID);
      const ms = performance.now() - started;
      console.log(`the ${bytes}-byte igbinary session answered in ${Math.round(ms)} ms: ${worst}`);
      // Signed in (its user is built within the budget) or refused as undecodable: either is an answer.
      expect(['200 {"ok":true}', '200 {"ok":false,"msg":"No autenticado"}']).toContain(worst);

      for (const instance of instances) {
        expect(instance.child.exitCode, instance.stderr()).toBeNull();
        expect(await post(instance.url, USER_ID)).toBe('200 {"ok":true}');
      }
      const next = await Promise.all(Array.from({ length: 10 }, () => post(nginx!.url, USER_ID)));
      expect(next).toEqual(Array.from({ length: 10 }, () => '200 {"ok":true}'));
    }, 60_000);
  },
);
