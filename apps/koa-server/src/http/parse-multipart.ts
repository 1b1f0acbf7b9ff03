import type { IncomingMessage } from 'node:http';
import { multipartBoundary, multipartParser } from './multipart-parser.js';
import { readBody } from './read-body.js';
import { REJECTIONS } from './rejection.js';

export interface BodyLimits {
  readonly maxBytes: number;
  readonly maxParams: number;
}

/**
 * The text fields of a multipart/form-data body, in order, as PHP reads them,
 * parsed as the body streams in: files are dropped, never stored; the body
 * stops being read at the first byte over the limit or the first field over
 * the parameter count (413).
 */
export async function parseMultipart(req: IncomingMessage, limits: BodyLimits): Promise<Array<[string, string]>> {
  const fields: Array<[string, string]> = [];
  const parser = multipartParser(multipartBoundary(req.headers['content-type'] ?? ''), (name, value) => {
    if (fields.length >= limits.maxParams) throw REJECTIONS.tooLarge();
    fields.push([name, value]);
  });
  await readBody(req, limits.maxBytes, (chunk) => parser.write(chunk));
  parser.end();
  return fields;
}
