import type { Context } from 'koa';
import { phpFormParams, type FormParams } from '@cotizaciones/core';
import { parseMultipart, type BodyLimits } from './parse-multipart.js';
import { REJECTIONS } from './rejection.js';
import { urlencodedPairs } from './urlencoded.js';

const NO_PARAMS: FormParams = new Map();

/**
 * PHP's `$_POST`: parameters come only from an urlencoded or multipart body;
 * any other body (JSON, text, none) gives none, and the query string is never read.
 * `ctx.request.body` is the urlencoded body as text, as koa-body read it.
 */
export async function readFormParams(ctx: Context, limits: BodyLimits): Promise<FormParams> {
  // koa-body leaves a string only for an urlencoded body.
  const raw = (ctx.request as { body?: unknown }).body;
  if (typeof raw === 'string') {
    return phpFormParams(checkCount(urlencodedPairs(raw), limits));
  }
  if (ctx.is('multipart/form-data')) {
    return phpFormParams(await parseMultipart(ctx.req, limits));
  }
  return NO_PARAMS;
}

function checkCount<T>(pairs: T[], limits: BodyLimits): T[] {
  if (pairs.length > limits.maxParams) throw REJECTIONS.tooLarge();
  return pairs;
}
