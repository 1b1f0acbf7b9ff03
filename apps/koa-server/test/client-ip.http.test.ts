import { afterEach, describe, expect, it } from 'vitest';
import { FIELD_PATH, form, rawPost, startService, type TestService } from './support/service.js';

// What the audit row records about the caller: never an address the client can choose.
describe('client IP and user agent in the audit row', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function service(trustProxy: string): Promise<TestService> {
    const svc = await startService({ TRUST_PROXY: trustProxy });
    cleanup.push(() => svc.close());
    return svc;
  }

  /** POSTs a change from the loopback address `from`, with extra headers; the new audit row. */
  async function postFrom(svc: TestService, url: string, from: string, headers: Record<string, string>) {
    const before = (await svc.rows()).length;
    const cookie = await svc.signIn();
    const answer = await rawPost(
      `${url}${FIELD_PATH}`,
      form({ id: '12', field: 'estado', value: 'x' }).toString(),
      { ...headers, cookie },
      from,
    );
    expect(answer.status).toBe(200);
    const rows = (await svc.rows()).slice(before);
    expect(rows).toHaveLength(1);
    return rows[0]!;
  }

  it("with TRUST_PROXY=0, ignores X-Forwarded-For and records the connection's address", async () => {
    const svc = await service('0');
    const row = await postFrom(svc, svc.url, '127.0.0.3', { 'x-forwarded-for': '6.6.6.6' });
    expect(row.client_ip).toBe('127.0.0.3');
  });

  it.each([
    ['a word', 'not-an-ip'],
    ['an address with a port', '10.0.0.1:8080'],
    ['100 characters', `1.2.3.4${'x'.repeat(93)}`],
    ['an SQL fragment', "1.2.3.4'); DROP TABLE activity_log; --"],
  ])('records NULL when the trusted X-Forwarded-For entry is %s', async (_, entry) => {
    const svc = await service('127.0.0.1');
    const row = await postFrom(svc, svc.url, '127.0.0.1', { 'x-forwarded-for': `6.6.6.6, ${entry}` });
    expect(row.client_ip).toBeNull();
  });

  it('records an IPv6 address as it is', async () => {
    const svc = await service('127.0.0.1');
    const row = await postFrom(svc, svc.url, '127.0.0.1', { 'x-forwarded-for': '2001:db8::7' });
    expect(row.client_ip).toBe('2001:db8::7');
  });

  it('cuts the user agent to 512 characters with the contract marker, and records none as NULL', async () => {
    const svc = await service('0');
    const long = `Mozilla/5.0 ${'A'.repeat(3000)}`;
    const cut = (await postFrom(svc, svc.url, '127.0.0.1', { 'user-agent': long })).user_agent;
    expect(cut).toHaveLength(512);
    expect(cut).toBe(`${long.slice(0, 512 - '…[cut: 3012 bytes]'.length)}…[cut: 3012 bytes]`);
    expect((await postFrom(svc, svc.url, '127.0.0.1', { 'user-agent': 'curl/8.5.0' })).user_agent).toBe('curl/8.5.0');
    expect((await postFrom(svc, svc.url, '127.0.0.1', {})).user_agent).toBeNull();
  });
});
