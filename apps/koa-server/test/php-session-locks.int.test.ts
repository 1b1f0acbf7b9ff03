import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { countSpawns, holdAsPhp, phpFixtures, temporaryDirs } from '@cotizaciones/adapters/testing';
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
    // A session a PHP request holds, truncated to be rewritten shorter: within a second, a write in progress.
    truncatedByPhp(file);
    const php = holdAsPhp(file);
    const spawns = countSpawns();
    const rowsBefore = (await svc.rows()).length;
    const upstreamBefore = svc.stub.received.length;
    const [busyBefore, unreachableBefore] = [await sessionErrors(svc, 'busy'), await sessionErrors(svc, 'unreachable')];
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
    // Counted as the lock waiters' bound, not as a store that cannot be reached (which pages).
    expect(await sessionErrors(svc, 'busy')).toBe(busyBefore + CLIENTS - WAITERS);
    expect(await sessionErrors(svc, 'unreachable')).toBe(unreachableBefore);
    php.finish(`user|a:1:{s:2:"id";i:${SIGNED_IN_ID};}`);
    const waited = (await Promise.all(answers)).filter((answer) => !answered.slice(0, CLIENTS - WAITERS).includes(answer));
    expect(waited).toHaveLength(WAITERS);
    for (const answer of waited) await expectAnswer(answer, 200, '{"ok":true}');
    expect((await svc.rows()).length).toBe(rowsBefore + WAITERS);
    expect(spawns).not.toHaveBeenCalled();
  });
});

/** session_store_errors_total of one cause, from the service's /metrics. */
async function sessionErrors(svc: TestService, cause: string): Promise<number> {
  const metrics = await (await fetch(`${svc.url}/metrics`)).text();
  return Number(new RegExp(`^session_store_errors_total\\{cause="${cause}"\\} (\\d+)$`, 'm').exec(metrics)?.[1]);
}

/** The file truncated as PHP does before a shorter version: its change time past its birth time (the clock is coarse). */
function truncatedByPhp(file: string): void {
  writeFileSync(file, 'user|i:1;');
  for (;;) {
    truncateSync(file, 0);
    const stat = statSync(file, { bigint: true });
    if (stat.ctimeNs !== stat.birthtimeNs) return;
  }
}

/**
 * A PHP process writing session files, stretched (`hold-files.php`): each file locked and truncated, truncated
 * again every 100 ms, for `ms` (0: until `stop` exists), then written back and released. Resolves once all are held.
 */
async function phpHolding(stop: string, ms: number, files: string[]) {
  const php = spawn('php', [`${phpFixtures}hold-files.php`, stop, String(ms), ...files], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(php, 'exit');
  await once(php.stdout, 'data');
  return { exited };
}

describe("SESSION_STORE=php with files: one client holding PHP's lock on sessions of its own takes no other user's place", () => {
  let dir: string;
  let svc: TestService;
  const session = (id: string, user: number) => {
    writeFileSync(join(dir, `sess_${id}`), `user|a:1:{s:2:"id";i:${user};}`);
    return join(dir, `sess_${id}`);
  };

  beforeAll(async () => {
    dir = temporaryDir('php-locks-fair-');
    // The default bounds; the clients told apart by X-Forwarded-For, from a proxy on loopback.
    svc = await startService({
      DEV_LOGIN: '',
      SESSION_STORE: 'php',
      PHP_SESSION_SAVE_PATH: dir,
      PHP_SESSION_TOUCH: 'none',
      TRUST_PROXY: 'loopback',
    });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('16 looping requests on two sessions PHP holds for one client, 20 users whose sessions PHP holds a moment: no user answered 503, each signed in', async () => {
    const attackerIds = ['a', 'b'].map((letter) => `attacker${letter.repeat(18)}`);
    const attackerFiles = attackerIds.map((id) => session(id, 66));
    const victims = Array.from({ length: 20 }, (_, i) => ({ id: `victim${String(i).padStart(2, '0')}${'v'.repeat(18)}`, user: 100 + i }));
    const victimFiles = victims.map(({ id, user }) => session(id, user));
    const stop = join(dir, 'stop-attacker');
    const attacker = await phpHolding(stop, 0, attackerFiles);
    let attacking = true;
    const attackerStatuses: number[] = [];
    const loops = Array.from({ length: 16 }, async (_, i) => {
      while (attacking) {
        const answer = await svc.post(FIELD_PATH, change('61'), {
          cookie: `PHPSESSID=${attackerIds[i % 2]!}`,
          headers: { 'x-forwarded-for': '203.0.113.66' },
        });
        await answer.text();
        attackerStatuses.push(answer.status);
      }
    });
    try {
      // Half the attacker's requests are answered at once (turned away: its places are taken), the rest wait on PHP.
      expect(await until(() => attackerStatuses.length >= 8, 10_000)).toBe(true);
      const victimHold = await phpHolding(join(dir, 'no-stop'), 400, victimFiles);
      // Each user's page: two requests at once, from the user's own address.
      const answers = await Promise.all(
        victims.flatMap(({ id }, i) =>
          [1, 2].map(() =>
            svc.post(FIELD_PATH, change('62'), { cookie: `PHPSESSID=${id}`, headers: { 'x-forwarded-for': `198.51.100.${i + 1}` } }),
          ),
        ),
      );
      const statuses = await Promise.all(answers.map(async (answer) => `${answer.status} ${await answer.text()}`));
      expect(statuses).toEqual(Array.from({ length: 40 }, () => '200 {"ok":true}'));
      await victimHold.exited;
    } finally {
      attacking = false;
      writeFileSync(stop, '');
      await Promise.all(loops);
      await attacker.exited;
    }
    // The attacker's own requests met its bound: turned away with a retry hint, or waited their 2 s.
    expect(attackerStatuses).toContain(503);
  }, 60_000);
});
