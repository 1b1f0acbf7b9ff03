import { REJECTIONS } from './rejection.js';

const utf8 = new TextDecoder('utf-8');
const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');
/** RFC 2046: 1 to 70 characters. */
const MAX_BOUNDARY = 70;

type State = 'preamble' | 'after-delimiter' | 'padding' | 'headers' | 'content' | 'epilogue';

interface Part {
  readonly name: string | undefined;
  readonly isFile: boolean;
  readonly chunks: Buffer[];
}

/** A part without headers: neither a field nor a file; skipped. */
const NAMELESS: Part = Object.freeze({ name: undefined, isFile: true, chunks: [] });

export interface MultipartParser {
  /** Feeds the next bytes of the body, in any split; throws a 400 Rejection on a malformed body. */
  write(chunk: Buffer): void;
  /** The body has ended: throws a 400 Rejection unless it was complete. */
  end(): void;
}

/**
 * A streaming multipart/form-data parser with PHP's rules: a part is a file
 * exactly when its Content-Disposition has a `filename` (whatever its
 * Content-Type), and file contents are dropped as they stream; every other
 * named part is a field, its bytes read as UTF-8. It keeps only the fields
 * and a tail shorter than the delimiter; each byte is looked at a bounded
 * number of times (`Buffer#indexOf` for the delimiter), whatever the split.
 */
export function multipartParser(boundary: string, onField: (name: string, value: string) => void): MultipartParser {
  const delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  let state: State = 'preamble';
  // A virtual line break before the body, so a body that starts with the delimiter (no preamble) is found as any other.
  let carry: Buffer = CRLF;
  let headerChunks: Buffer[] = [];
  let part: Part | undefined;

  const keep = (data: Buffer, from: number) => {
    carry = Buffer.from(data.subarray(from));
  };
  // Field bytes are kept (the body limit bounds them); file bytes are dropped here.
  const keepContent = (bytes: Buffer) => {
    if (part && !part.isFile && bytes.length) part.chunks.push(bytes);
  };
  const finishPart = () => {
    if (part && !part.isFile && part.name !== undefined) onField(part.name, utf8.decode(Buffer.concat(part.chunks)));
    part = undefined;
  };

  return {
    write(chunk) {
      const data = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      carry = Buffer.alloc(0);
      let pos = 0;
      for (;;) {
        switch (state) {
          case 'preamble':
          case 'content': {
            const at = data.indexOf(delimiter, pos);
            if (at < 0) {
              // Only the last bytes that begin a delimiter wait for the next chunk: the rest is never copied.
              const safe = Math.max(pos, delimiterStartIn(data, delimiter));
              if (state === 'content') keepContent(data.subarray(pos, safe));
              keep(data, safe);
              return;
            }
            if (state === 'content') keepContent(data.subarray(pos, at));
            finishPart();
            pos = at + delimiter.length;
            state = 'after-delimiter';
            break;
          }
          case 'after-delimiter':
            if (data.length - pos < 2) {
              keep(data, pos);
              return;
            }
            if (data[pos] === 0x2d && data[pos + 1] === 0x2d) {
              state = 'epilogue';
              return;
            }
            state = 'padding';
            break;
          case 'padding':
            // Transport padding (spaces, tabs) may follow a delimiter; then the line ends.
            while (pos < data.length && (data[pos] === 0x20 || data[pos] === 0x09)) pos += 1;
            if (data.length - pos < 2) {
              keep(data, pos);
              return;
            }
            if (data[pos] !== 0x0d || data[pos + 1] !== 0x0a) throw REJECTIONS.malformed(new Error('bad multipart delimiter line'));
            // The line break stays: an empty header block is then `\r\n\r\n` like any other end of headers.
            headerChunks = [];
            state = 'headers';
            break;
          case 'headers': {
            const at = data.indexOf(HEADERS_END, pos);
            if (at < 0) {
              const safe = Math.max(pos, data.length - HEADERS_END.length + 1);
              headerChunks.push(Buffer.from(data.subarray(pos, safe)));
              keep(data, safe);
              return;
            }
            // The block starts with the delimiter line's break, so `at === pos` is a part with no headers at all.
            if (headerChunks.length === 0) part = at === pos ? NAMELESS : partFromHeaders(utf8.decode(data.subarray(pos, at)));
            else {
              headerChunks.push(data.subarray(pos, at));
              part = partFromHeaders(utf8.decode(Buffer.concat(headerChunks)));
              headerChunks = [];
            }
            pos = at + HEADERS_END.length;
            state = 'content';
            break;
          }
          case 'epilogue':
            return;
        }
      }
    },
    end() {
      if (state !== 'epilogue') throw REJECTIONS.malformed(new Error('multipart body ended before its closing delimiter'));
    },
  };
}

/**
 * Where the shortest tail of `data` that is a proper start of `delimiter` begins, or `data.length`.
 * The delimiter's only CR is its first byte (a boundary holds none), so only the last CR can begin it.
 */
function delimiterStartIn(data: Buffer, delimiter: Buffer): number {
  const from = Math.max(0, data.length - delimiter.length + 1);
  const found = data.subarray(from).lastIndexOf(0x0d);
  if (found < 0) return data.length;
  const at = from + found;
  return delimiter.subarray(0, data.length - at).equals(data.subarray(at)) ? at : data.length;
}

/** The boundary parameter of a multipart Content-Type, or a 400 when there is none usable. */
export function multipartBoundary(contentType: string): string {
  const match = /;\s*boundary\s*=\s*(?:"([^"]*)"|([^;\s"]*))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2] ?? '';
  if (boundary.length > 0 && boundary.length <= MAX_BOUNDARY) return boundary;
  throw REJECTIONS.malformed(new Error('multipart/form-data without a usable boundary'));
}

/** `\r\nName: value\r\n…` (the block starts with the delimiter line's break) → what PHP needs of the part. */
function partFromHeaders(block: string): Part {
  const lines: string[] = [];
  for (const line of block.split('\r\n')) {
    if (line === '') continue;
    // A folded line continues the header before it.
    if ((line.startsWith(' ') || line.startsWith('\t')) && lines.length) lines[lines.length - 1] += line;
    else lines.push(line);
  }
  const disposition = lines.find(
    (line) => line.includes(':') && line.slice(0, line.indexOf(':')).trim().toLowerCase() === 'content-disposition',
  );
  const params = disposition === undefined ? new Map<string, string>() : dispositionParams(disposition.slice(disposition.indexOf(':') + 1));
  return { name: params.get('name'), isFile: params.has('filename'), chunks: [] };
}

/**
 * The `key=value` pairs of a Content-Disposition as PHP's rfc1867 reads them:
 * pairs split at `;` outside quotes, keys matched case-insensitively, values
 * quoted with `"` or `'` (a backslash escapes the quote or itself) or bare up
 * to the first space. The last value of a key wins.
 */
function dispositionParams(value: string): Map<string, string> {
  const params = new Map<string, string>();
  let i = 0;
  while (i < value.length) {
    while (value[i] === ' ' || value[i] === '\t' || value[i] === ';') i += 1;
    const start = i;
    let quote: string | undefined;
    // The pair runs to the next `;` outside quotes.
    for (; i < value.length; i += 1) {
      const c = value[i];
      if (quote) {
        if (c === '\\' && value[i + 1] === quote) i += 1;
        else if (c === quote) quote = undefined;
      } else if (c === '"' || c === "'") quote = c;
      else if (c === ';') break;
    }
    const pair = value.slice(start, i);
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const key = pair.slice(0, eq).toLowerCase();
    params.set(key, paramValue(pair.slice(eq + 1)));
  }
  return params;
}

function paramValue(raw: string): string {
  const text = raw.replace(/^[ \t]+/, '');
  const quote = text[0];
  if (quote !== '"' && quote !== "'") return /^[^ \t]*/.exec(text)?.[0] ?? '';
  let result = '';
  for (let i = 1; i < text.length && text[i] !== quote; i += 1) {
    if (text[i] === '\\' && (text[i + 1] === '\\' || text[i + 1] === quote)) i += 1;
    result += text[i];
  }
  return result;
}
