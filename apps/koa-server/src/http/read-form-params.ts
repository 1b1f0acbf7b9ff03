import { phpFormParams, type FormParams } from '@cotizaciones/core';
import { parseMultipart, type BodyLimits } from './parse-multipart.js';
import { readBody } from './read-body.js';
import { urlencodedPairs } from './urlencoded.js';
import type { RequestContext } from './request-state.js';

const NO_PARAMS: FormParams = new Map();

/**
 * PHP's `$_POST`: parameters come only from an urlencoded or multipart body;
 * any other body (JSON, text, none) gives none and is not read, and the query
 * string is never read.
 */
export async function readFormParams(ctx: RequestContext, limits: BodyLimits): Promise<FormParams> {
  if (ctx.is('application/x-www-form-urlencoded')) {
    const chunks: Buffer[] = [];
    await readBody(ctx.req, limits.maxBytes, (chunk) => chunks.push(chunk));
    return phpFormParams(urlencodedPairs(Buffer.concat(chunks), limits.maxParams));
  }
  if (ctx.is('multipart/form-data')) {
    return phpFormParams(await parseMultipart(ctx.req, limits));
  }
  return NO_PARAMS;
}
