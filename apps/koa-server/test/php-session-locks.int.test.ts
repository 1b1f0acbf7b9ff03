import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { countSpawns, holdAsPhp, temporaryDirs } from '@cotizaciones/adapters/testing';
import { expectAnswer } from './support/contract-headers.js';
import { FIELD_PATH, form, startService, type TestService } from './support/service.js';
import { until } from './support/until.js';

const temporaryDir = temporaryDirs();
const NOT_SIGNED_IN = '{"ok":false,"msg":"No autenticado"}';
const UNAVAILABLE = '{"ok":false,"msg":"Servicio no disponible."}';
const SIGNED_IN_ID = '4201';
const WAITERS = 2;
const CLIENTS = 20;
const change = (id: string) => form({ id, field: 'estado', value: 'ok' });

describe("SESSION_STORE=php with files: PHP's lock, without a process and bounded", () => {
  let dir: string;
  let svc: TestService;
  const signedIn = `PHPSESSID=${'s'.repeat(26)}`;

  beforeAll(async () => {
    dir = temporaryDir('php-locks-');
    writeFileSync(join(dir, `sess_${'s'.repeat(26)}`), `user|a:1:{s:2:"id";i:${SIGNED_IN_ID};}`);
    // A small bound keeps the burst short: PHP's write in progress is a fresh file, and a waiter waits 2 s at most (the
    // adapter's own test holds 200 requests to the default bound of 8 on an injected clock).
    svc = await startService({
      DEV_LOGIN: '',
      SESSION_STORE: 'php',
      PHP_SESSION_SAVE_PATH: dir,
      PHP_SESSION_TOUCH: 'none',
      PHP_SESSION_LOCK_WAITERS: String(WAITERS),
    });
  });
  afterAll(async () => {
    await svc?.close();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("64 requests naming an empty session (PHP's for any visitor), PHP holding it: No autenticado, no process, one warning; a signed-in user answered meanwhile", async () => {
    const id = 'e'.repeat(26);
    const file = join(dir, `sess_${id}`);
    writeFileSync(file, '');
    // Only a file unchanged for over a second is final: within it, PHP may be between its truncate and its write.
    expect(await until(() => Date.now() - statSync(file).ctimeMs > 1_100, 5_000)).toBe(true);
    const php = holdAsPhp(file);
    const spawns = countSpawns();
    const rowsBefore = (await svc.rows()).length;
    const anonymous = Array.from({ length: 64 }, () => svc.post(FIELD_PATH, change('51'), { cookie: `PHPSESSID=${id}` }));
    const user = (async () => {
      const answers = [];
      for (let i = 0; i < 4; i += 1) answers.push(await svc.post(FIELD_PATH, change('52'), { cookie: signedIn }));
      return answers;
    })();
    for (const answer of await Promise.all(anonymous)) await expectAnswer(answer, 200, NOT_SIGNED_IN);
    for (const answer of await user) await expectAnswer(answer, 200, '{"ok":true}');
    expect(spawns).not.toHaveBeenCalled();
    const rows = (await svc.rows()).slice(rowsBefore);
    expect(rows.map((row) => row.user_id)).toEqual([SIGNED_IN_ID, SIGNED_IN_ID, SIGNED_IN_ID, SIGNED_IN_ID]);
    const warnings = svc.logs.lines.filter((line) => line.problem === 'empty');
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(svc.logs.lines)).not.toContain(id);
    php[Symbol.dispose]();
  });

  it('requests for a session PHP is writing: PHP_SESSION_LOCK_WAITERS wait for its lock, the rest 503 Retry-After: 1 (no upstream call, no activity row); the waiters then read what PHP wrote', async () => {
    const id = 'w'.repeat(26);
    const file = join(dir, `sess_${id}`);
    // A fresh session a PHP request holds: within its first second the file is a write in progress.
    writeFileSync(file, '');
    const php = holdAsPhp(file);
    const spawns = countSpawns();
    const rowsBefore = (await svc.rows()).length;
    const upstreamBefore = svc.stub.received.length;
    const answered: Response[] = [];
    const answers = Array.from({ length: CLIENTS }, () =>
      svc.post(FIELD_PATH, change('53'), { cookie: `PHPSESSID=${id}` }).then((answer) => {
        answered.push(answer);
        return answer;
      }),
    );
    expect(await until(() => answered.length >= CLIENTS - WAITERS, 10_000)).toBe(true);
    expect(answered).toHaveLength(CLIENTS - WAITERS);
    for (const answer of answered) {
      expect(answer.headers.get('retry-after')).toBe('1');
      await expectAnswer(answer, 503, UNAVAILABLE);
    }
    expect(svc.stub.received.length).toBe(upstreamBefore);
    expect((await svc.rows()).length).toBe(rowsBefore);
    php.finish(`user|a:1:{s:2:"id";i:${SIGNED_IN_ID};}`);
    const waited = (await Promise.all(answers)).filter((answer) => !answered.slice(0, CLIENTS - WAITERS).includes(answer));
    expect(waited).toHaveLength(WAITERS);
    for (const answer of waited) await expectAnswer(answer, 200, '{"ok":true}');
    expect((await svc.rows()).length).toBe(rowsBefore + WAITERS);
    expect(spawns).not.toHaveBeenCalled();
  });
});
