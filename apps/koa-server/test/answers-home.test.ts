import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../src/', import.meta.url).pathname;
const HOME = 'http/answers.ts';

/** What writes an answer's status, header or body: on Koa's context, on Node's response, on a socket. */
const WRITES: readonly RegExp[] = [
  /\bctx(?:\.response)?\.(?:set|append|remove|vary|redirect|attachment)\(/,
  /\bctx(?:\.response)?\.(?:status|body|type|message|length|etag|lastModified)\s*=(?!=)/,
  /\.(?:setHeader|writeHead|removeHeader|appendHeader|flushHeaders|writeContinue|writeEarlyHints)\(/,
  // A write of bytes on a response or a socket (an `end()` without bytes only closes).
  /\b(?:res|response|socket|last)\.(?:write|end)\(\s*[^)\s]/,
];

/** The source without its comments, line for line (a comment may name a write). */
function code(text: string): string[] {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '))
    .split('\n')
    .map((line) => line.replace(/\/\/.*$/, ''));
}

/** Each line of `text` that writes an answer, as `file:line: code`. */
function writesIn(file: string, text: string): string[] {
  return code(text).flatMap((line, index) => (WRITES.some((write) => write.test(line)) ? [`${file}:${index + 1}: ${line.trim()}`] : []));
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [relative(SRC, path)] : [];
  });
}

describe('the one home of the HTTP answer', () => {
  it('no source file but http/answers.ts sets a status, a header or a body', () => {
    const outside = sources(SRC)
      .filter((file) => file !== HOME)
      .flatMap((file) => writesIn(file, readFileSync(join(SRC, file), 'utf8')));
    expect(outside).toEqual([]);
  });

  it('recognises every kind of write (the scan above is not blind)', () => {
    const samples = [
      "ctx.set('Vary', 'Origin');",
      "ctx.response.set('X', 'y');",
      'ctx.body = rows;',
      'ctx.status = 401;',
      "ctx.type = 'application/json';",
      "res.setHeader('Connection', 'close');",
      'res.writeHead(200, headers).end(json);',
      'socket.end(bytes);',
    ];
    for (const sample of samples) expect(writesIn('sample.ts', sample), sample).toHaveLength(1);
    for (const sample of ['if (ctx.status === 503) return;', 'socket.end();', '// ctx.body = comment', "ctx.get('Origin');"]) {
      expect(writesIn('sample.ts', sample), sample).toEqual([]);
    }
    expect(writesIn(HOME, readFileSync(join(SRC, HOME), 'utf8')).length).toBeGreaterThan(5);
  });
});
