import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import {
  freePort,
  memcachedProcess,
  missing,
  pdoSessionTable,
  redisClusterAvailable,
  redisClusterProcess,
  temporaryDirs,
} from '@cotizaciones/adapters/testing';
import { otlpReceiver } from './support/otlp-receiver.js';
import { FIELD_PATH, form, startService } from './support/service.js';
import { until } from './support/until.js';

// The session read's span beside memcached daemons, a Redis Cluster the test starts and a PDO session table (tracing.http.test.ts has the rest).
const temporaryDir = temporaryDirs();

describe("OpenTelemetry traces with the PHP app's sessions in memcached", () => {
  it('the session read names its mode, php memcached', async () => {
    const receiver = await otlpReceiver();
    const memcached = memcachedProcess(await freePort());
    await memcached.start();
    const svc = await startService({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      DEV_LOGIN: '',
      SESSION_STORE: 'php',
      PHP_SESSION_SAVE_HANDLER: 'memcached',
      PHP_SESSION_SAVE_PATH: memcached.address,
    });
    try {
      const answer = await svc.post(FIELD_PATH, form({ id: '15', field: 'estado', value: 'x' }), { cookie: `PHPSESSID=${'m'.repeat(26)}` });
      expect(await answer.text()).toBe('{"ok":false,"msg":"No autenticado"}');
      const read = () => receiver.spans().find((span) => span.name === 'session read');
      expect(await until(() => read() !== undefined, 10_000)).toBe(true);
      expect(read()?.attributes).toMatchObject({
        'cotizaciones.session.mode': 'php memcached',
        'cotizaciones.session.outcome': 'signed-out',
      });
    } finally {
      await svc.close();
      receiver.close();
      await memcached.stop();
      memcached.remove();
    }
  });
});

describe.skipIf(missing('redis-server and redis-cli', redisClusterAvailable()))(
  "OpenTelemetry traces with the PHP app's sessions in a Redis Cluster",
  () => {
    it('the session read names its mode, php rediscluster', async () => {
      const receiver = await otlpReceiver();
      const cluster = await redisClusterProcess({ masters: 3 });
      const svc = await startService({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        DEV_LOGIN: '',
        SESSION_STORE: 'php',
        PHP_SESSION_SAVE_HANDLER: 'rediscluster',
        PHP_SESSION_SAVE_PATH: cluster.seeds,
      });
      try {
        const answer = await svc.post(FIELD_PATH, form({ id: '15', field: 'estado', value: 'x' }), {
          cookie: `PHPSESSID=${'c'.repeat(26)}`,
        });
        expect(await answer.text()).toBe('{"ok":false,"msg":"No autenticado"}');
        const read = () => receiver.spans().find((span) => span.name === 'session read');
        expect(await until(() => read() !== undefined, 10_000)).toBe(true);
        expect(read()?.attributes).toMatchObject({
          'cotizaciones.session.mode': 'php rediscluster',
          'cotizaciones.session.outcome': 'signed-out',
        });
      } finally {
        await svc.close();
        receiver.close();
        await cluster.stop();
      }
    }, 60_000);
  },
);

describe("OpenTelemetry traces with the PHP app's sessions in a PDO session table", () => {
  it('the session read names its mode, php pdo', async () => {
    const receiver = await otlpReceiver();
    const table = await pdoSessionTable('sqlite', join(temporaryDir('tracing-pdo-'), 'sessions.db'));
    const now = Math.floor(Date.now() / 1000);
    await table.insert('p'.repeat(26), 'user|a:1:{s:2:"id";i:15;}', now + 1440, now);
    const svc = await startService({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      DEV_LOGIN: '',
      SESSION_STORE: 'php',
      PHP_SESSION_SAVE_HANDLER: 'pdo',
      PHP_SESSION_SAVE_PATH: table.savePath,
      PHP_SESSION_PDO_TABLE: table.table,
    });
    try {
      const answer = await svc.post(FIELD_PATH, form({ id: '15', field: 'estado', value: 'x' }), { cookie: `PHPSESSID=${'p'.repeat(26)}` });
      expect(await answer.text()).toBe('{"ok":true}');
      const read = () => receiver.spans().find((span) => span.name === 'session read');
      expect(await until(() => read() !== undefined, 10_000)).toBe(true);
      expect(read()?.attributes).toMatchObject({ 'cotizaciones.session.mode': 'php pdo', 'cotizaciones.session.outcome': 'signed-in' });
    } finally {
      await svc.close();
      receiver.close();
      await table.drop();
    }
  });
});
