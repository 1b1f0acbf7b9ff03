import { pino, type Logger } from 'pino';

export type ServerLog = Pick<Logger, 'info' | 'warn' | 'error' | 'debug' | 'fatal'> & { child: Logger['child'] };

/** JSON lines on stdout; secrets that may ride along in logged objects are redacted. */
export function createServerLog(level: string, destination?: NodeJS.WritableStream): Logger {
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
    destination ?? process.stdout,
  );
}
