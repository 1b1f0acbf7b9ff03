import { expect, onTestFinished, vi } from 'vitest';
import type { SessionStore } from '@cotizaciones/adapters';
import { expectAnswer } from './contract-headers.js';
import { startApp } from './app.js';
import { FIELD_PATH, form } from './service.js';

/**
 * On the app with a 150 s idle limit (its sessions in `sessions`, or cookies), a session used once, then
 * idle for 250 s on the test's clock, is absent: "No autenticado", one upstream call in all.
 */
export async function expectIdleSessionAbsent(sessions?: SessionStore): Promise<void> {
  // Only the clock is fake: the server and its sockets run for real, and time moves when the test says.
  vi.useFakeTimers({ toFake: ['Date'] });
  onTestFinished(() => void vi.useRealTimers());
  const app = await startApp({ sessionPolicy: { idleMs: 150_000, maxMs: 3_600_000 } }, sessions === undefined ? {} : { sessions });
  try {
    const cookie = await app.signIn();
    const post = () => fetch(`${app.url}${FIELD_PATH}`, { method: 'POST', body: form({ id: '1' }), headers: { cookie } });
    await expectAnswer(await post(), 200, '{"ok":true}');
    vi.setSystemTime(Date.now() + 250_000);
    await expectAnswer(await post(), 200, '{"ok":false,"msg":"No autenticado"}');
    expect(app.upstream.calls).toHaveLength(1);
  } finally {
    app.close();
  }
}
