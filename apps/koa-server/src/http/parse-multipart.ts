import type { IncomingMessage } from 'node:http';
import { REJECTIONS } from './rejection.js';

export interface BodyLimits {
  readonly maxBytes: number;
  readonly maxParams: number;
}

interface PartStream {
  name: string | null;
  originalFilename: string | null;
  on(event: 'data', listener: (chunk: Buffer) => void): void;
  on(event: 'end', listener: () => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
}

/**
 * The text fields of a multipart/form-data body, in order, as PHP reads them:
 * a part is a file exactly when its Content-Disposition has a `filename`
 * (whatever its Content-Type); files are read and discarded, never stored.
 */
export async function parseMultipart(req: IncomingMessage, limits: BodyLimits): Promise<Array<[string, string]>> {
  // Loaded on the first multipart request: the inline editor posts urlencoded forms.
  const { default: formidable } = await import('formidable');
  return new Promise((resolve, reject) => {
    const form = formidable({ maxFields: Infinity, maxFieldsSize: limits.maxBytes, allowEmptyFiles: true });
    const fields: Array<[string, string]> = [];
    const pending: Array<Promise<void>> = [];
    let failed = false;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      reject(error);
    };

    form.on('progress', (received) => {
      if (received > limits.maxBytes) fail(REJECTIONS.tooLarge());
    });
    form.onPart = (part) => {
      const stream = part as unknown as PartStream;
      const isFile = stream.originalFilename !== null;
      if (!isFile && fields.length + 1 > limits.maxParams) {
        fail(REJECTIONS.tooLarge());
        return;
      }
      pending.push(
        new Promise<void>((done, partFailed) => {
          const chunks: Buffer[] = [];
          if (!isFile) stream.on('data', (chunk) => chunks.push(chunk));
          stream.on('error', partFailed);
          stream.on('end', () => {
            if (!isFile && stream.name !== null) fields.push([stream.name, new TextDecoder().decode(Buffer.concat(chunks))]);
            done();
          });
        }),
      );
    };
    form.parse(req).then(
      async () => {
        try {
          await Promise.all(pending);
          if (!failed) resolve(fields);
        } catch (error) {
          fail(REJECTIONS.malformed(error));
        }
      },
      (error: unknown) => {
        const httpCode = (error as { httpCode?: number }).httpCode;
        fail(httpCode === 413 ? REJECTIONS.tooLarge(error) : REJECTIONS.malformed(error));
      },
    );
  });
}
