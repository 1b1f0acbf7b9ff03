import { describe, expect, it, onTestFinished } from 'vitest';
import { missing } from '@cotizaciones/adapters/testing';
import { nginxAvailable, startNginxChain } from './support/nginx-chain.js';
import { FIELD_PATH, form, rawPost, startService } from './support/service.js';

// The client IP in the audit row behind real nginx (client-ip.http.test.ts has the direct peers).
describe('client IP in the audit row behind nginx', () => {
  // Hop k of the chain connects to the next from 127.0.0.(11+k); the last one to the service from 127.0.0.1.
  // Through two, the service receives "6.6.6.6, 10.0.0.99, 127.0.0.2, 127.0.0.11" from 127.0.0.1.
  it.skipIf(missing('nginx', nginxAvailable)).each<[string, string, number]>([
    ['behind one nginx, TRUST_PROXY naming the address it connects from', '127.0.0.1', 1],
    ['behind two nginx, TRUST_PROXY naming both (an address and a CIDR range)', '127.0.0.1,127.0.0.8/29', 2],
    ['behind two nginx, a bare count outside production (TRUST_PROXY=2)', '2', 2],
  ])('%s: records the address the outermost nginx saw, not one the client wrote', async (_, trustProxy, hops) => {
    const svc = await startService({ TRUST_PROXY: trustProxy });
    onTestFinished(() => svc.close());
    const nginx = await startNginxChain(Number(new URL(svc.url).port), hops);
    onTestFinished(() => nginx.stop());
    const cookie = await svc.signIn();
    const answer = await rawPost(
      `${nginx.url}${FIELD_PATH}`,
      form({ id: '12', field: 'estado', value: 'x' }).toString(),
      { 'x-forwarded-for': '6.6.6.6, 10.0.0.99', cookie },
      '127.0.0.2',
    );
    expect(answer.status).toBe(200);
    expect((await svc.rows()).map((row) => row.client_ip)).toEqual(['127.0.0.2']);
  });
});
