import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { SAVE_HANDLERS, saveHandler, type PhpSaveHandlerStore } from '@cotizaciones/adapters/php-session/options';
import { SessionUnavailableError } from '@cotizaciones/core';
import { createLog, openSessionStore, RECORD_BACKENDS, readSessionConfig, type ConfigProblems } from '@cotizaciones/runtime';
import { startApp } from './support/app.js';
import { FIELD_PATH, form } from './support/service.js';
import { sessionSpanModes } from './support/session-span-modes.js';

// The "A PHP save handler" recipe (docs/recipes.md), proved: a handler that exists only in this test,
// written from the recipe's steps and nothing else, is chosen by PHP_SESSION_SAVE_HANDLER, refused by
// name where it is not listed, and holds the app's sessions through phpSessions (the decoding, the
// user): signed in, signed out, 503 while it cannot be reached, its connection errors logged by its name.

const spanModes = sessionSpanModes();

/** The test's PHP app writes its sessions on these shelves (a store beyond the process, for the handler). */
const SHELVES = new Map([['main', new Map<string, Uint8Array>()]]);

/** Step 1: its save path's parser (`shelf:<name>`), throwing in the words the configuration prints. */
function parseShelfPath(text: string): string {
  const name = /^shelf:([a-z]+)$/.exec(text)?.[1];
  if (name === undefined) throw new Error('expected shelf:<name>');
  return name;
}

/**
 * Step 1: the store, a `PhpSaveHandlerStore`: the bytes PHP wrote, whole (so final), and every call
 * failing as the core's SessionUnavailableError while `down`, the client's error told once.
 */
function phpShelfStore(options: { shelf: Map<string, Uint8Array>; onConnectionError?: (error: Error) => void }) {
  let reachable = true;
  const reach = () => (reachable ? Promise.resolve() : Promise.reject(new SessionUnavailableError('the shelf is out of reach')));
  const store: PhpSaveHandlerStore & { down(): void } = {
    async read(id) {
      await reach();
      const bytes = options.shelf.get(id);
      return bytes === undefined ? { kind: 'absent' } : { kind: 'data', bytes, final: true };
    },
    touchExpiry: reach,
    ready: reach,
    ping: reach,
    describe: () => `a shelf of ${options.shelf.size} sessions`,
    close: () => Promise.resolve(),
    down() {
      reachable = false;
      options.onConnectionError?.(new Error('the shelf fell'));
    },
  };
  return store;
}

// Step 2: its entry in the registry (the test's own list: SAVE_HANDLERS and this one).
const opened: Array<ReturnType<typeof phpShelfStore>> = [];
const SHELF = saveHandler({
  name: 'shelf',
  owner: 'this test',
  savePathForm: 'shelf:<name>',
  defaults: {},
  mode: 'php shelf',
  logName: 'PHP sessions (shelf)',
  parseSavePath: parseShelfPath,
  open(settings, context) {
    const store = phpShelfStore({
      shelf: SHELVES.get(parseShelfPath(settings.savePath)) ?? new Map<string, Uint8Array>(),
      ...(context.onConnectionError ? { onConnectionError: context.onConnectionError } : {}),
    });
    opened.push(store);
    return Promise.resolve(store);
  },
});
const HANDLERS = [...SAVE_HANDLERS, SHELF];

function sessionConfig(env: Record<string, string>, handlers = HANDLERS) {
  const problems: ConfigProblems = new Map();
  const config = readSessionConfig({ SESSION_STORE: 'php', ...env }, problems, RECORD_BACKENDS, handlers);
  return { config, problems: [...problems.values()] };
}

describe('a PHP save handler added by the recipe', () => {
  it('is chosen by PHP_SESSION_SAVE_HANDLER, its save path checked by its parser, and refused by name where it is not listed', () => {
    expect(sessionConfig({ PHP_SESSION_SAVE_HANDLER: 'shelf', PHP_SESSION_SAVE_PATH: 'shelf:main' })).toMatchObject({
      config: { sessionStore: 'php', phpSession: { saveHandler: 'shelf', savePath: 'shelf:main' } },
      problems: [],
    });
    expect(sessionConfig({ PHP_SESSION_SAVE_HANDLER: 'shelf', PHP_SESSION_SAVE_PATH: '/var/lib/php/sessions' }).problems).toEqual([
      'PHP_SESSION_SAVE_PATH expected shelf:<name>',
    ]);
    expect(sessionConfig({ PHP_SESSION_SAVE_HANDLER: 'shelf' }).problems).toEqual([
      expect.stringMatching(/^PHP_SESSION_SAVE_PATH required: .*; shelf:<name> for shelf\)$/),
    ]);
    expect(sessionConfig({ PHP_SESSION_SAVE_HANDLER: 'shelf', PHP_SESSION_SAVE_PATH: 'shelf:main' }, [...SAVE_HANDLERS]).problems).toEqual([
      'PHP_SESSION_SAVE_HANDLER "shelf" is not supported: expected files (PHP), redis (phpredis), rediscluster (phpredis), memcached (php-memcached) or pdo (a session table)',
    ]);
  });

  it("holds the app's sessions: signed in, signed out, and 503 while it cannot be reached, said in the log and traced by its name", async () => {
    const lines: string[] = [];
    const log = createLog(
      'warn',
      new Writable({
        write: (chunk: Buffer, _encoding, done) => {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const { config } = sessionConfig({ PHP_SESSION_SAVE_HANDLER: 'shelf', PHP_SESSION_SAVE_PATH: 'shelf:main' });
    const sessions = await openSessionStore(config, log);
    expect(sessions).toMatchObject({ kind: 'php', handler: 'shelf', mode: 'php shelf' });
    const app = await startApp({ traced: true }, { sessions });
    try {
      const post = (id: string) =>
        fetch(`${app.url}${FIELD_PATH}`, { method: 'POST', body: form({ id: '12' }), headers: { cookie: `PHPSESSID=${id}` } });
      const [signedIn, signedOut] = ['a'.repeat(26), 'b'.repeat(26)];
      SHELVES.get('main')!.set(signedIn, Buffer.from('user|a:1:{s:2:"id";i:7;}'));
      expect(await (await post(signedIn)).text()).toBe('{"ok":true}');
      expect(app.activityLog.entries).toEqual([expect.objectContaining({ userId: '7' })]);
      expect(await (await post(signedOut)).text()).toBe('{"ok":false,"msg":"No autenticado"}');

      opened.at(-1)?.down();
      const unavailable = await post(signedIn);
      expect([unavailable.status, await unavailable.text()]).toEqual([503, '{"ok":false,"msg":"Servicio no disponible."}']);
      expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toContain('PHP sessions (shelf) connection error');
      expect(spanModes()).toEqual(['php shelf']);
    } finally {
      app.close();
      await sessions.close();
    }
  });
});
