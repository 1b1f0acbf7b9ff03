/**
 * The consumer contract this service gives the upstream quotation API's team: what it sends and what
 * it relies on in the answers, generated from what the real upstream adapters (got and undici) send
 * through the real use cases — each rule of the payload, the bearer token, the `Idempotency-Key` (one per
 * change, the same on every re-send of it, so an upstream that honours it applies each change once), the `ok` / `error.message`
 * answers and the 401 that asks for a fresh token.
 *
 * The file is committed (pacts/); this test fails when it is stale. After a deliberate change:
 *   UPDATE_PACT=1 npx vitest run test/upstream.pact.test.ts
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MatchersV3, PactV3, type V3Interaction } from '@pact-foundation/pact';
import { describe, expect, it } from 'vitest';
import {
  changeUseCase,
  OPERATIONS,
  phpFormParams,
  UPDATE_QUOTATION_FIELD,
  UPDATE_QUOTATION_ITEM,
  type Operation,
  type Outcome,
  type TokenSource,
  type UpstreamPayload,
} from '@cotizaciones/core';
import { inMemoryActivityLog, inMemorySession } from '@cotizaciones/core/testing';
import { staticTokenSource } from '../src/index.js';
import { gotUpstream } from '../src/got.js';
import { undiciUpstream } from '../src/undici.js';

const { regex } = MatchersV3;

const CONSUMER = 'cotizaciones-service';
const PROVIDER = 'cotizaciones-upstream-api';
const PACT_FILE = `${CONSUMER}-${PROVIDER}.json`;
const COMMITTED = fileURLToPath(new URL(`../pacts/${PACT_FILE}`, import.meta.url));

const FIELD_PATH = UPDATE_QUOTATION_FIELD.upstreamPath;
const ITEM_PATH = UPDATE_QUOTATION_ITEM.upstreamPath;
const TOKEN = 'tok-valid';
const USER = { id: 42, name: 'Ana' };
/** A change's key as the web endpoints make it (a request id); the CLI's is `<run id>:<content hash>:<occurrence>`. */
const KEY = '3f2b8c1e-6d4a-4b7e-9c0f-1a2b3c4d5e6f';

/** The headers every call carries. The token is an example: the provider's verification puts a real one in. */
const sentHeaders = (token: string | ReturnType<typeof regex>) => ({
  'Content-Type': 'application/json',
  Accept: 'application/json',
  Authorization: token,
  'Idempotency-Key': regex('^[\\w.:-]{1,200}$', KEY),
});
const anyBearer = regex('^Bearer \\S+$', `Bearer ${TOKEN}`);
const accepted = { status: 200, headers: { 'Content-Type': 'application/json' }, body: { ok: true } };
/** A refusal: `ok` is not true, and `error.message` is a non-empty string the user is shown. */
const refused = (message: string) => ({
  status: 200,
  headers: { 'Content-Type': 'application/json' },
  body: { ok: false, error: { message: regex('^.+$', message) } },
});

interface Case {
  readonly name: string;
  readonly operation: Operation;
  /** The form the browser posts to this service. */
  readonly form: Array<[string, string]>;
  readonly interactions: (payload: UpstreamPayload) => V3Interaction[];
  /** What this service must send for that form (the payload rules of the contract). */
  readonly payload: UpstreamPayload;
  readonly tokens?: () => TokenSource;
  /** The reply the browser gets: how this service reads the answer. */
  readonly reply: Outcome['reply'];
}

const post = (path: string, payload: UpstreamPayload, token: string | ReturnType<typeof regex> = anyBearer) => ({
  method: 'POST',
  path,
  headers: sentHeaders(token),
  body: payload,
});

const cases: Case[] = [
  {
    name: 'a field update: id, field and value as the browser sent them',
    operation: UPDATE_QUOTATION_FIELD,
    form: [
      ['id', '12'],
      ['field', 'estado'],
      ['value', 'aprobada ñ ✓'],
    ],
    payload: { id: '12', field: 'estado', value: 'aprobada ñ ✓' },
    interactions: (payload) => [
      {
        states: [{ description: 'quotation 12 exists' }],
        uponReceiving: 'a field update of quotation 12',
        withRequest: post(FIELD_PATH, payload),
        willRespondWith: accepted,
      },
    ],
    reply: { ok: true },
  },
  {
    name: 'benef_emp: idEmpresa and idUsuario, never value',
    operation: UPDATE_QUOTATION_FIELD,
    form: [
      ['id', '12'],
      ['field', 'benef_emp'],
      ['value', 'ignored'],
      ['idEmpresa', '3'],
      ['idUsuario', '9'],
    ],
    payload: { id: '12', field: 'benef_emp', idEmpresa: '3', idUsuario: '9' },
    interactions: (payload) => [
      {
        states: [{ description: 'quotation 12 exists' }, { description: 'company 3 and user 9 exist' }],
        uponReceiving: 'a beneficiary change (benef_emp) of quotation 12',
        withRequest: post(FIELD_PATH, payload),
        willRespondWith: accepted,
      },
    ],
    reply: { ok: true },
  },
  {
    name: 'absent parameters: integer 0 ids and empty strings, as the PHP endpoint sent them',
    operation: UPDATE_QUOTATION_FIELD,
    form: [],
    payload: { id: 0, field: '', value: '' },
    interactions: (payload) => [
      {
        states: [{ description: 'no quotation has id 0' }],
        uponReceiving: 'a field update with every parameter absent',
        withRequest: post(FIELD_PATH, payload),
        willRespondWith: refused('Cotización no encontrada.'),
      },
    ],
    reply: { ok: false, msg: 'Cotización no encontrada.' },
  },
  {
    name: 'ids forwarded exactly as received, never cast; a refusal with its message',
    operation: UPDATE_QUOTATION_FIELD,
    form: [
      ['id', ' 12abc'],
      ['field', 'total'],
      ['value', '-5'],
    ],
    payload: { id: ' 12abc', field: 'total', value: '-5' },
    interactions: (payload) => [
      {
        states: [{ description: 'quotation 12 exists' }],
        uponReceiving: 'a field update with an id that is not a clean integer',
        withRequest: post(FIELD_PATH, payload),
        willRespondWith: refused('Id inválido.'),
      },
    ],
    reply: { ok: false, msg: 'Id inválido.' },
  },
  {
    name: 'an item update: id, field and value',
    operation: UPDATE_QUOTATION_ITEM,
    form: [
      ['id', '9'],
      ['field', 'cantidad'],
      ['value', '3'],
    ],
    payload: { id: '9', field: 'cantidad', value: '3' },
    interactions: (payload) => [
      {
        states: [{ description: 'quotation item 9 exists' }],
        uponReceiving: 'an update of quotation item 9',
        withRequest: post(ITEM_PATH, payload),
        willRespondWith: accepted,
      },
    ],
    reply: { ok: true },
  },
  {
    name: 'an item delete: delete is the integer 1, never field or value',
    operation: UPDATE_QUOTATION_ITEM,
    form: [
      ['id', '9'],
      ['delete', '0'],
      ['field', 'cantidad'],
      ['value', '3'],
    ],
    payload: { id: '9', delete: 1 },
    interactions: (payload) => [
      {
        states: [{ description: 'quotation item 9 exists' }],
        uponReceiving: 'a delete of quotation item 9',
        withRequest: post(ITEM_PATH, payload),
        willRespondWith: accepted,
      },
    ],
    reply: { ok: true },
  },
  {
    name: 'an item change the upstream refuses, with its message',
    operation: UPDATE_QUOTATION_ITEM,
    form: [
      ['id', '10'],
      ['field', 'cantidad'],
      ['value', '-1'],
    ],
    payload: { id: '10', field: 'cantidad', value: '-1' },
    interactions: (payload) => [
      {
        states: [{ description: 'quotation item 10 exists' }],
        uponReceiving: 'an item update with a value the upstream refuses',
        withRequest: post(ITEM_PATH, payload),
        willRespondWith: refused('La cantidad debe ser positiva.'),
      },
    ],
    reply: { ok: false, msg: 'La cantidad debe ser positiva.' },
  },
  {
    name: 'a 401 to an expired token: sent once more with a fresh token, and only then',
    operation: UPDATE_QUOTATION_FIELD,
    form: [
      ['id', '12'],
      ['field', 'estado'],
      ['value', 'aprobada'],
    ],
    payload: { id: '12', field: 'estado', value: 'aprobada' },
    tokens: refreshingTokens,
    interactions: (payload) => [
      {
        states: [{ description: 'quotation 12 exists' }, { description: 'the token tok-expired has expired' }],
        uponReceiving: 'a field update under an expired token',
        withRequest: post(FIELD_PATH, payload, 'Bearer tok-expired'),
        // The status alone is relied on: whatever the body (none here), a 401 leads to the refresh.
        willRespondWith: { status: 401 },
      },
      {
        states: [{ description: 'quotation 12 exists' }, { description: 'the token tok-fresh is valid' }],
        uponReceiving: 'the same field update under a fresh token',
        withRequest: post(FIELD_PATH, payload, 'Bearer tok-fresh'),
        willRespondWith: accepted,
      },
    ],
    reply: { ok: true },
  },
];

/** Issues tok-expired, then tok-fresh once the upstream has rejected it. */
function refreshingTokens(): TokenSource {
  let current = 'tok-expired';
  return {
    token: () => Promise.resolve(current),
    refresh: (_user, rejected) => {
      if (rejected === current) current = 'tok-fresh';
      return Promise.resolve(current);
    },
  };
}

const adapters = [
  ['got', gotUpstream],
  ['undici', undiciUpstream],
] as const;

/** Where each adapter's run writes its pact: a fresh directory, so nothing merges into an old file. */
const generated = new Map<string, string>();

for (const [name, create] of adapters) {
  describe(`pact with the upstream API, sent by the ${name} adapter`, () => {
    const dir = mkdtempSync(join(tmpdir(), `pact-${name}-`));
    generated.set(name, dir);

    it.each(cases)('$name', async (testCase) => {
      // What the use case builds is checked first: the pact records what this service really sends.
      const provider = new PactV3({ consumer: CONSUMER, provider: PROVIDER, dir, logLevel: 'error' });
      for (const interaction of testCase.interactions(testCase.payload)) provider.addInteraction(interaction);
      await provider.executeTest(async (mockServer) => {
        const upstream = create({ baseUrl: mockServer.url, timeoutMs: 5_000 });
        try {
          const deps = { upstream, tokens: testCase.tokens?.() ?? staticTokenSource(TOKEN), activityLog: inMemoryActivityLog() };
          const useCase = changeUseCase(deps, testCase.operation);
          const outcome = await useCase({ session: inMemorySession(USER), params: phpFormParams(testCase.form), idempotencyKey: KEY });
          expect(outcome.reply).toEqual(testCase.reply);
        } finally {
          upstream.close();
        }
      });
    });

    it("answers the operation's default message when the upstream's refusal has no message", async () => {
      const provider = new PactV3({ consumer: CONSUMER, provider: PROVIDER, dir, logLevel: 'error' });
      const payload = { id: '11', field: 'estado', value: 'x' };
      provider.addInteraction({
        states: [{ description: 'quotation 11 is locked' }],
        uponReceiving: 'a field update refused without a message',
        withRequest: post(FIELD_PATH, payload),
        willRespondWith: { status: 200, headers: { 'Content-Type': 'application/json' }, body: { ok: false } },
      });
      await provider.executeTest(async (mockServer) => {
        const upstream = create({ baseUrl: mockServer.url, timeoutMs: 5_000 });
        try {
          const outcome = await changeUseCase(
            { upstream, tokens: staticTokenSource(TOKEN), activityLog: inMemoryActivityLog() },
            UPDATE_QUOTATION_FIELD,
          )({
            session: inMemorySession(USER),
            params: phpFormParams([
              ['id', '11'],
              ['field', 'estado'],
              ['value', 'x'],
            ]),
            idempotencyKey: KEY,
          });
          expect(outcome.reply).toEqual({ ok: false, msg: UPDATE_QUOTATION_FIELD.defaultMsg });
        } finally {
          upstream.close();
        }
      });
    });
  });
}

describe('the committed pact file', () => {
  const read = (dir: string) => normalized(readFileSync(join(dir, PACT_FILE), 'utf8'));

  it('is the same whichever adapter sends the requests', () => {
    const [got, undici] = adapters.map(([name]) => read(generated.get(name) ?? ''));
    expect(undici).toEqual(got);
  });

  it('has interactions for every operation of the catalog (add its cases to test/upstream.pact.test.ts)', () => {
    const pact = read(generated.get('got') ?? '') as { interactions: Array<{ request: { path: string } }> };
    const paths = new Set(pact.interactions.map((interaction) => interaction.request.path));
    for (const operation of OPERATIONS) {
      expect(
        paths.has(operation.upstreamPath),
        `${operation.name}: no case posts to ${operation.upstreamPath}; add its cases to packages/adapters/test/upstream.pact.test.ts`,
      ).toBe(true);
    }
    expect(
      new Set(cases.map((testCase) => testCase.operation.name)),
      'every operation has cases in packages/adapters/test/upstream.pact.test.ts',
    ).toEqual(new Set(OPERATIONS.map((operation) => operation.name)));
  });

  it(`is up to date (pacts/${PACT_FILE}; regenerate with UPDATE_PACT=1)`, () => {
    const dir = generated.get('got') ?? '';
    expect(readdirSync(dir)).toEqual([PACT_FILE]);
    const fresh = read(dir);
    if (process.env.UPDATE_PACT === '1') {
      mkdirSync(dirname(COMMITTED), { recursive: true });
      writeFileSync(COMMITTED, `${JSON.stringify(fresh, null, 2)}\n`);
    }
    expect(
      normalized(readFileSync(COMMITTED, 'utf8')),
      `pacts/${PACT_FILE} is stale: run UPDATE_PACT=1 npx vitest run test/upstream.pact.test.ts`,
    ).toEqual(fresh);
  });
});

/** The pact with its interactions in a stable order (they are written in the order the tests ran). */
function normalized(text: string): Record<string, unknown> {
  const pact = JSON.parse(text) as { interactions: Array<{ description: string }> } & Record<string, unknown>;
  return { ...pact, interactions: [...pact.interactions].sort((a, b) => a.description.localeCompare(b.description)) };
}
