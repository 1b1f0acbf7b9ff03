import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { temporaryDirs } from '@cotizaciones/adapters/testing';
import { FIELD_PATH, ITEM_PATH, form, rawPost, startService, type TestService } from './support/service.js';

interface Operation {
  responses: Record<string, { headers: Record<string, { schema: object }>; content: Record<string, { schema: object }> }>;
}
interface Document {
  paths: Record<string, { post: Operation }>;
  components: { schemas: Record<string, object> };
}

describe('the OpenAPI description', () => {
  let svc: TestService;
  let doc: Document;
  beforeAll(async () => {
    svc = await startService({ BODY_LIMIT_BYTES: '2048' });
    doc = (await (await fetch(`${svc.url}/openapi.json`)).json()) as Document;
  });
  afterAll(() => svc.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(Validator.supportedVersions.has('3.1')).toBe(true);
  });

  it('describes every answer the endpoints actually give, body and headers', async () => {
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'doc', components: doc.components });
    const cookie = await svc.signIn();
    const answers: Array<[string, Response]> = [];
    for (const path of [FIELD_PATH, ITEM_PATH]) {
      answers.push([path, await svc.post(path, form({ id: '1', field: 'f' }), { cookie })]);
      answers.push([path, await svc.post(path, form({ id: '1' }))]);
      answers.push([path, await svc.post(path, form({ 'id[]': '1' }), { cookie })]);
      answers.push([path, await svc.post(path, 'x', { cookie, headers: { 'content-type': 'multipart/form-data; boundary=b' } })]);
      answers.push([path, await rawPost(`${svc.url}${path}`, 'id=1', { cookie, origin: 'https://evil.example' })]);
      answers.push([path, await fetch(`${svc.url}${path}`, { method: 'PUT' })]);
      answers.push([path, await svc.post(path, form({ value: 'x'.repeat(4096) }), { cookie })]);
      svc.stub.answer({ json: { ok: false, error: { message: 'No existe.' } } });
      answers.push([path, await svc.post(path, form({ id: '2' }), { cookie })]);
      svc.stub.answer({ json: { ok: true } });
    }
    const statuses = new Set<number>();
    for (const [path, response] of answers) {
      const described = doc.paths[path]?.post.responses[String(response.status)];
      expect(described, `${path} ${response.status} is described`).toBeDefined();
      statuses.add(response.status);
      const [mediaType, { schema }] = Object.entries(described!.content)[0]!;
      expect(response.headers.get('content-type')).toBe(mediaType);
      const validate = ajv.compile({ $ref: 'doc#', ...resolveRefs(schema) });
      const body: unknown = await response.json();
      expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
      for (const [name, { schema: headerSchema }] of Object.entries(described!.headers)) {
        expect(ajv.validate(headerSchema, response.headers.get(name)), `${path} ${response.status} header ${name}`).toBe(true);
      }
    }
    expect([...statuses].sort()).toEqual([200, 400, 403, 405, 413]);
  });
});

describe("the OpenAPI description's session cookie", () => {
  const temporaryDir = temporaryDirs();
  const cookieOf = async (svc: TestService) =>
    (
      (await (await fetch(`${svc.url}/openapi.json`)).json()) as {
        components: { securitySchemes: { session: { in: string; name: string } } };
      }
    ).components.securitySchemes.session;

  it.each([
    ['the service’s own sessions', {}, 'cotizaciones.sid'],
    [
      'SESSION_STORE=php: PHP_SESSION_NAME',
      { DEV_LOGIN: '', SESSION_STORE: 'php', PHP_SESSION_NAME: 'APPSESSION', PHP_SESSION_TOUCH: 'none' },
      'APPSESSION',
    ],
  ])('is the cookie the sessions are read from: %s', async (_, env: Record<string, string>, name) => {
    const svc = await startService({
      ...env,
      ...(env.SESSION_STORE === 'php' ? { PHP_SESSION_SAVE_PATH: temporaryDir('openapi-php-') } : {}),
    });
    try {
      expect(await cookieOf(svc)).toMatchObject({ in: 'cookie', name });
    } finally {
      await svc.close();
    }
  });
});

/** Points the document's local $refs at the schema registered as "doc". */
function resolveRefs(schema: object): object {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')) as object;
}
