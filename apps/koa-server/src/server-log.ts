import { pino, type Logger } from 'pino';

export type ServerLog = Pick<Logger, 'info' | 'warn' | 'error' | 'debug' | 'fatal'> & { child: Logger['child'] };

/** JSON lines; secrets that may ride along in logged objects are redacted. */
export function createServerLog(level: string, destination: NodeJS.WritableStream | SonicBoom = process.stdout): Logger {
  return pino(
    {
      level,
      base: null,
      redact: {
        paths: [
          'token',
          '*.token',
          'req.headers.authorization',
          'req.headers.cookie',
          'res.headers["set-cookie"]',
          'headers.authorization',
          'headers.cookie',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

/**
 * stdout, buffered up to 4 KiB: a busy server writes its request lines in a few
 * system calls instead of one each. Flushed every second and, with
 * `flushSync`, on the way out.
 */
export function bufferedStdout(): SonicBoom {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => destination.flush(), 1_000).unref();
  return destination;
}

export type SonicBoom = ReturnType<typeof pino.destination>;
