import { OPERATIONS, type Operation } from '@cotizaciones/core';
import { JSON_CONTENT_TYPE, NO_CACHE, refusalMessage, type RefusalStatus } from './http/answers.js';

const text = { type: 'string' } as const;
/** The answer module's headers, each as a constant the answer must carry. */
const contractHeaders = Object.fromEntries(
  Object.entries({ 'Content-Type': JSON_CONTENT_TYPE, ...NO_CACHE }).map(([name, value]) => [
    name,
    { required: true, schema: { const: value } },
  ]),
);
const failure = (status: RefusalStatus) => ({
  type: 'object',
  required: ['ok', 'msg'],
  additionalProperties: false,
  properties: { ok: { const: false }, msg: { const: refusalMessage(status) } },
});
const answer = (description: string, schema: object, extraHeaders: object = {}) => ({
  description,
  headers: { ...contractHeaders, ...extraHeaders },
  content: { [JSON_CONTENT_TYPE]: { schema } },
});

function endpoint({ name, summary, params, defaultMsg }: Operation) {
  const form = {
    type: 'object',
    properties: Object.fromEntries(Object.entries(params).map(([param, description]) => [param, { ...text, description }])),
  };
  return {
    post: {
      operationId: name,
      summary,
      description: `Parameters are read as PHP's $_POST: only from an urlencoded or multipart body (never the query string); the last of repeated names wins; a parameter sent in array form (name[]) is refused. Without a signed-in session: "No autenticado". When the upstream fails without a message: "${defaultMsg}".`,
      security: [{ session: [] }],
      requestBody: {
        required: false,
        content: { 'application/x-www-form-urlencoded': { schema: form }, 'multipart/form-data': { schema: form } },
      },
      responses: {
        '200': answer('The result of the operation (also for refusals of the operation itself).', { $ref: '#/components/schemas/Result' }),
        '400': answer('A body that cannot be read (malformed multipart, undecodable Content-Encoding).', failure(400)),
        '403': answer('A cross-site POST (Sec-Fetch-Site: cross-site, or an Origin not allowed).', failure(403)),
        '405': answer('Any method but POST.', failure(405), { Allow: { required: true, schema: { const: 'POST' } } }),
        '413': answer('A body over the size limit, or more than the parameter limit.', failure(413)),
        '500': answer('An unexpected error (the cause is in the server log).', failure(500)),
        '503': answer(
          "The session store cannot be reached; or too many requests wait (the server's line, PHP's session locks), then with Retry-After.",
          failure(503),
          { 'Retry-After': { required: false, schema: { type: 'string' } } },
        ),
      },
    },
  };
}

/** The OpenAPI 3.1 description of the service, served at GET /openapi.json; `sessionCookie`: the configured mode's. */
export function openApiDocument(
  basePath: string,
  sessionCookie: { readonly name: string; readonly description: string },
  operations: readonly Operation[] = OPERATIONS,
) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Cotizaciones update service',
      version: '1.0.0',
      description: 'Drop-in replacement of the PHP inline-edit endpoints of quotations (cotizaciones).',
    },
    paths: {
      ...Object.fromEntries(operations.map((operation) => [`${basePath}${operation.webPath}`, endpoint(operation)])),
    },
    components: {
      schemas: {
        Result: {
          oneOf: [
            { type: 'object', required: ['ok'], additionalProperties: false, properties: { ok: { const: true } } },
            {
              type: 'object',
              required: ['ok', 'msg'],
              additionalProperties: false,
              properties: { ok: { const: false }, msg: { type: 'string' } },
            },
          ],
        },
      },
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', ...sessionCookie },
      },
    },
  };
}
