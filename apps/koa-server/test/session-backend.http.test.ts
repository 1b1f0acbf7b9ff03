import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RecordSessionStore } from '@cotizaciones/adapters';
import { testSessionStore } from '@cotizaciones/adapters/testing';
import { SessionUnavailableError } from '@cotizaciones/core';
import { createLog, openSessionStore, RECORD_BACKENDS, readSessionConfig, recordBackend, type ConfigProblems } from '@cotizaciones/runtime';
import { startApp } from './support/app.js';
import { FIELD_PATH, form } from './support/service.js';
import { sessionSpanModes } from './support/session-span-modes.js';

// The "add a session backend" recipe (docs/recipes.md), proved: a `records` backend that exists only
// in this test, written from the recipe's steps and nothing else, passes the session-store contract
// suite, is chosen by SESSION_STORE with its own variable, and holds the sessions of the app's
// requests: signed in, signed out, unavailable.

const spanModes = sessionSpanModes();

/**
 * Step 1: the factory, returning `{ kind: 'records', … }` with the lifecycle; its records are kept as
 * text under the session id (as a store beyond this process would), and `down()` makes every call fail
 * as the core's SessionUnavailableError, as a client's errors must.
 */
function mapSessionStore(options: { maxRecords: number }) {
  const records = new Map<string, { text: string; expiresAt: number }>();
  let reachable = true;
  const reach = () => (reachable ? Promise.resolve() : Promise.reject(new SessionUnavailableError('the map is down')));
  const store: RecordSessionStore & { down(): void } = {
    kind: 'records',
    ready: reach,
    ping: reach,
    describe: () => `a map of at most ${options.maxRecords} records`,
    close: () => Promise.resolve(records.clear()),
    async get(id) {
      await reach();
      const record = records.get(id);
      if (record === undefined || record.expiresAt <= Date.now()) return undefined;
      return JSON.parse(record.text) as unknown;
    },
    async set(id, record, ttlMs) {
      await reach();
      if (records.size >= options.maxRecords && !records.has(id)) throw new SessionUnavailableError('the map is full');
      records.set(id, { text: JSON.stringify(record), expiresAt: Date.now() + ttlMs });
    },
    async destroy(id) {
      await reach();
      records.delete(id);
    },
    down: () => void (reachable = false),
  };
  return store;
}

// Step 2 (an entry point of @cotizaciones/adapters, so that only a process choosing the backend loads
// its client) has nothing to load here: the factory is above.

// Step 3: the contract suite every session-record store passes.
testSessionStore(
  'a backend from the recipe',
  () => Promise.resolve({ store: mapSessionStore({ maxRecords: 100 }), close: () => Promise.resolve() }),
  {
    ttl: true,
  },
);

// Step 4: its RecordBackend entry: the SESSION_STORE value, its variables, how it opens.
const opened: Array<ReturnType<typeof mapSessionStore>> = [];
const MAP_RECORDS = recordBackend({
  name: 'map',
  variables: z.object({ MAP_SESSIONS_MAX: z.coerce.number().int().min(1).default(1_000).describe('a whole number of records') }),
  open: (variables) => {
    const store = mapSessionStore({ maxRecords: variables.MAP_SESSIONS_MAX });
    opened.push(store);
    return Promise.resolve(store);
  },
});
const BACKENDS = [...RECORD_BACKENDS, MAP_RECORDS];

function sessionConfig(env: Record<string, string>) {
  const problems: ConfigProblems = new Map();
  const config = readSessionConfig(env, problems, BACKENDS);
  return { config, problems: [...problems.values()] };
}

describe('a session backend added by the recipe', () => {
  it('is chosen by SESSION_STORE, reads its own variables, and is refused by name where it is not listed', () => {
    expect(sessionConfig({ SESSION_STORE: 'map', MAP_SESSIONS_MAX: '5' })).toMatchObject({
      config: { sessionStore: 'map', records: { backend: { name: 'map' }, variables: { MAP_SESSIONS_MAX: 5 } } },
      problems: [],
    });
    expect(sessionConfig({ SESSION_STORE: 'map', MAP_SESSIONS_MAX: 'many' }).problems).toEqual([
      'MAP_SESSIONS_MAX must be a whole number of records (got "many")',
    ]);
    const unlisted: ConfigProblems = new Map();
    readSessionConfig({ SESSION_STORE: 'map' }, unlisted);
    expect([...unlisted.values()]).toEqual(['SESSION_STORE must be cookie, redis or php (got "map")']);
  });

  it("holds the app's sessions: signed in, signed out, and 503 while it cannot be reached; traced under its name", async () => {
    const { config } = sessionConfig({ SESSION_STORE: 'map', MAP_SESSIONS_MAX: '10' });
    const sessions = await openSessionStore(config, createLog('silent'));
    expect(sessions.describe()).toBe('a map of at most 10 records');
    const app = await startApp({ traced: true }, { sessions });
    try {
      const post = (cookie?: string) =>
        fetch(`${app.url}${FIELD_PATH}`, { method: 'POST', body: form({ id: '12' }), headers: cookie === undefined ? {} : { cookie } });
      const cookie = await app.signIn('7');
      expect(await (await post(cookie)).text()).toBe('{"ok":true}');
      expect(app.activityLog.entries).toEqual([expect.objectContaining({ userId: '7' })]);
      await fetch(`${app.url}/dev/logout`, { method: 'POST', headers: { cookie } });
      expect(await (await post(cookie)).text()).toBe('{"ok":false,"msg":"No autenticado"}');

      const again = await app.signIn('8');
      opened.at(-1)?.down();
      const unavailable = await post(again);
      expect([unavailable.status, await unavailable.text()]).toEqual([503, '{"ok":false,"msg":"Servicio no disponible."}']);
      expect(spanModes()).toEqual(['map']);
    } finally {
      app.close();
      await sessions.close();
    }
  });
});
