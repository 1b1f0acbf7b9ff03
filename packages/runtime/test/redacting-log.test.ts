import { describe, expect, it } from 'vitest';
import { createLog, unredactedLog } from '../src/redacting-log.js';

function captured(level = 'info') {
  const lines: Array<Record<string, unknown>> = [];
  const sink = {
    write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) > 0,
    flush: () => Promise.resolve(),
    droppedBytes: () => 0,
  };
  const log = createLog(level, sink);
  return { log, lines };
}

describe('the server log', () => {
  it('redacts tokens, cookies and authorization headers wherever a line carries them', () => {
    const { log, lines } = captured();
    log.info(
      {
        token: 't-1',
        upstream: { token: 't-2' },
        req: { headers: { authorization: 'Bearer t-3', cookie: 'sid=s-1' } },
        headers: { cookie: 'sid=s-2' },
      },
      'm',
    );
    const text = JSON.stringify(lines);
    for (const secret of ['t-1', 't-2', 't-3', 's-1', 's-2']) expect(text).not.toContain(secret);
    expect(lines[0]).toMatchObject({
      token: '[redacted]',
      upstream: { token: '[redacted]' },
      req: { headers: { authorization: '[redacted]', cookie: '[redacted]' } },
    });
  });

  it('reduces an error to its name, message and code', () => {
    const { log, lines } = captured();
    const error = Object.assign(new Error('refused'), { code: 'ECONNREFUSED', rawPacket: Buffer.from('Cookie: sid=s-3') });
    log.warn({ err: error }, 'm');
    expect(lines[0]?.err).toEqual({ name: 'Error', message: 'refused', code: 'ECONNREFUSED' });
  });

  // For lines whose fields the caller builds (the request line): nothing is censored, so nothing is scanned.
  it('unredacted: writes a line as given, at the parent level, and leaves the parent redacting', () => {
    const { log, lines } = captured('warn');
    const plain = unredactedLog(log);
    plain.info({ requestId: 'r-1' }, 'request');
    plain.warn({ requestId: 'r-2', status: 503, detail: { token: 'as-given' } }, 'request');
    log.warn({ token: 't-4' }, 'm');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ requestId: 'r-2', status: 503, detail: { token: 'as-given' }, msg: 'request' });
    expect(lines[1]).toMatchObject({ token: '[redacted]' });
  });
});
