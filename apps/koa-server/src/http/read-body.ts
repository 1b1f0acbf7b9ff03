import type { IncomingMessage } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createUnzip } from 'node:zlib';
import { REJECTIONS } from './rejection.js';

/**
 * Streams a request body to `onChunk`, decoded (Content-Encoding gzip, deflate,
 * br or identity), and stops at the first byte over `maxBytes` — counted on the
 * wire and after decoding — with a 413. Nothing is buffered here: memory stays
 * bounded whatever the client sends. On any failure the request is paused, not
 * drained: the answer then closes the connection (see close-unread-body.ts).
 * `onChunk` may throw a Rejection to stop reading.
 */
export async function readBody(req: IncomingMessage, maxBytes: number, onChunk: (chunk: Buffer) => void): Promise<void> {
  if (Number(req.headers['content-length']) > maxBytes) throw REJECTIONS.tooLarge();
  const decompressor = decompressorFor(req);
  const decoded: Readable = decompressor ? req.pipe(decompressor) : req;

  await new Promise<void>((resolve, reject) => {
    let wire = 0;
    let received = 0;
    let settled = false;
    const stop = (error?: Error) => {
      if (settled) return;
      settled = true;
      req.off('data', countWire);
      req.off('close', onClose);
      req.off('error', onError);
      decoded.off('data', onData);
      decoded.off('end', onEnd);
      decoded.off('error', onError);
      if (error === undefined) {
        resolve();
        return;
      }
      req.pause();
      if (decompressor) {
        req.unpipe(decompressor);
        decompressor.destroy();
      }
      reject(error);
    };
    function countWire(chunk: Buffer) {
      wire += chunk.length;
      // A compressed stream that decodes to little (empty gzip members) must not be read forever either.
      if (wire > maxBytes) stop(REJECTIONS.tooLarge());
    }
    function onData(chunk: Buffer) {
      received += chunk.length;
      if (received > maxBytes) {
        stop(REJECTIONS.tooLarge());
        return;
      }
      try {
        onChunk(chunk);
      } catch (error) {
        stop(error instanceof Error ? error : REJECTIONS.malformed(error));
      }
    }
    function onEnd() {
      stop();
    }
    function onError(error: unknown) {
      stop(REJECTIONS.malformed(error));
    }
    function onClose() {
      // The client went away before the end of its body.
      if (!req.complete) stop(REJECTIONS.malformed(new Error('request aborted')));
    }
    if (decompressor) req.on('data', countWire);
    req.on('close', onClose);
    req.on('error', onError);
    decoded.on('error', onError);
    decoded.on('end', onEnd);
    decoded.on('data', onData);
  });
}

function decompressorFor(req: IncomingMessage): Transform | undefined {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  switch (encoding) {
    case 'identity':
    case '':
      return undefined;
    case 'gzip':
    case 'deflate':
      // Either wrapper: zlib detects which (as koa-body's inflation did).
      return createUnzip();
    case 'br':
      return createBrotliDecompress();
    default:
      throw REJECTIONS.malformed(new Error(`unsupported Content-Encoding: ${encoding.slice(0, 32)}`));
  }
}
