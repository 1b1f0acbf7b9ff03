import { spawn } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openSqlActivityLogStore } from '@cotizaciones/adapters/sql';
import { entryRecord } from '@cotizaciones/adapters';
import { dropTable, missing, sampleEntry, serviceUrls, startStubUpstream, type StubUpstreamServer } from '@cotizaciones/adapters/testing';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const urls = serviceUrls();

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The built tool, as `pnpm cli` runs it; `whenStarted` runs once the tool has sent its first request. */
async function cli(args: string[], env: Record<string, string>, whenStarted?: (child: ReturnType<typeof spawn>) => void): Promise<Ran> {
  // Its own process group, as under a terminal: a test can signal the group, as Ctrl-C does. A spool of its own, not ./data's.
  const spool = join(mkdtempSync(join(tmpdir(), 'spool-')), 'activity-spool');
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env.PATH, ACTIVITY_LOG_SPOOL: spool, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  if (whenStarted) whenStarted(child);
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

/** A TCP forwarder to `target` that can be taken down (connections refused, open ones cut) and brought back on the same port. */
async function switchable(target: string) {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  let server: Server | undefined;
  let listenPort = 0;
  const up = async () => {
    server = createServer((client) => {
      const upstream = createConnection(Number(port), hostname);
      for (const socket of [client, upstream]) {
        open.add(socket);
        socket.on('close', () => open.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    server.listen(listenPort, '127.0.0.1');
    await once(server, 'listening');
    listenPort = (server.address() as { port: number }).port;
  };
  await up();
  return {
    url: `http://127.0.0.1:${listenPort}`,
    up,
    async down() {
      const closed = server ? once(server, 'close') : Promise.resolve();
      server?.close();
      for (const socket of open) socket.destroy();
      await closed;
    },
  };
}

/** An audit entry for quotation `n`, as the tool would record it. */
const sampleEntryFor = (n: number) =>
  sampleEntry({
    entityId: BigInt(n),
    description: `Actualizó la cotización #${n}`,
    userId: '4',
    userAgent: 'cotizaciones-cli/0.1.0',
    clientIp: undefined,
  });

const until = async (check: () => boolean, withinMs = 10_000) => {
  const deadline = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('cotizaciones apply (the built CLI against a stub upstream over HTTP)', () => {
  let stub: StubUpstreamServer;
  let dir: string;
  let env: Record<string, string>;
  let db: string;
  beforeAll(async () => {
    stub = await startStubUpstream();
  });
  afterAll(async () => {
    await stub.close();
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cli-'));
    db = join(dir, 'activity.db');
    env = {
      UPSTREAM_BASE_URL: stub.url,
      UPSTREAM_TOKEN: 'cli-secret-token',
      ACTIVITY_LOG_URL: `sqlite:${db}`,
      ACTIVITY_LOG_DEAD_LETTER: join(dir, 'dead.jsonl'),
    };
    stub.received.length = 0;
    stub.answer({ json: { ok: true } });
    return () => rmSync(dir, { recursive: true, force: true });
  });
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const rows = async (url = `sqlite:${db}`, table?: string) => {
    const store = await openSqlActivityLogStore(url, table ? { table } : {});
    const found = await store.recent(1000);
    await store.close();
    return found.reverse();
  };

  it('sends each line through the use case, writes one audit row per success as --as, and reports a rejection and a malformed line', async () => {
    stub.answer((request) =>
      request.body.includes('"id":"13"') ? { json: { ok: false, error: { message: 'Cotización cerrada' } } } : { json: { ok: true } },
    );
    const input = file(
      'changes.csv',
      'operation,id,field,value,delete\nquotation,12,estado,aprobado,\nquotation,13,estado,aprobado,\nitem,7,,,1\nitem,,cantidad,3,\n',
    );
    const ran = await cli(['apply', input, '--as', '42', '--concurrency', '1'], env);

    expect(ran.code).toBe(1);
    expect(stub.received.map((r) => [r.path, JSON.parse(r.body) as unknown, r.headers.authorization])).toEqual([
      ['/api/cotizaciones/update', { id: '12', field: 'estado', value: 'aprobado' }, 'Bearer cli-secret-token'],
      ['/api/cotizaciones/update', { id: '13', field: 'estado', value: 'aprobado' }, 'Bearer cli-secret-token'],
      ['/api/cotizaciones/items/update', { id: '7', delete: 1 }, 'Bearer cli-secret-token'],
    ]);
    // One row per line, in the order the lines finished.
    const [header, ...resultRows] = readFileSync(`${input}.results.csv`, 'utf8').trim().split('\n');
    expect(header).toBe('line,outcome,message');
    expect(resultRows.sort()).toEqual(['2,ok,', '3,rejected,Cotización cerrada', '4,ok,', '5,malformed,id is missing']);
    expect(ran.stdout).toMatch(/^run cli-\S+ as user 42: 2 ok, 1 rejected, 1 malformed; results in /);
    const logged = await rows();
    expect(logged.map((row) => [row.event_key, row.entity_id, row.user_id])).toEqual([
      ['cotizaciones.update', '12', '42'],
      ['cotizaciones.item_delete', '7', '42'],
    ]);
    expect(logged[0]?.details).toBe('{"field":"estado"}');
    const runId = /run (cli-\S+) as/.exec(ran.stdout)?.[1] ?? '';
    // A row's request id is its line's idempotency key: the run, the content's hash, its occurrence.
    const keyOf = (id: string) =>
      String(stub.received.find((request) => request.body.includes(`"id":"${id}"`))?.headers['idempotency-key']);
    expect(logged.map((row) => row.request_id)).toEqual([keyOf('12'), keyOf('7')]);
    expect(keyOf('12')).toMatch(new RegExp(`^${runId}:[0-9a-f]{32}:1$`));
    expect(logged[0]?.user_agent).toMatch(/^cotizaciones-cli\/\d+\.\d+\.\d+$/);
    expect(ran.stdout + ran.stderr).not.toContain('cli-secret-token');
  });

  it('exits 0 when every line succeeded; a rerun skips what the journal says was applied', async () => {
    const input = file(
      'ok.ndjson',
      '{"operation":"quotation","id":1,"field":"estado","value":"x"}\n{"operation":"item","id":2,"field":"cantidad","value":"4"}\n',
    );
    expect((await cli(['apply', input, '--as', '7'], env)).code).toBe(0);
    expect(stub.received).toHaveLength(2);
    const again = await cli(['apply', input, '--as', '7'], env);
    expect(again.code).toBe(0);
    expect(stub.received).toHaveLength(2);
    expect(again.stdout).toContain('2 skipped');
  });

  it('every call carries Idempotency-Key <run id>:<hash>:<occurrence>: a rerun re-sends an unchanged line with the same key, an edited line with another', async () => {
    stub.answer((request) => (request.body.includes('"id":"3"') ? { status: 500, text: 'down' } : { json: { ok: true } }));
    const lines = ['operation,id,field,value', 'quotation,1,estado,x', 'quotation,2,estado,x', 'quotation,3,estado,x'];
    const input = file('keys.csv', `${lines.join('\n')}\n`);
    const first = await cli(['apply', input, '--as', '7', '--concurrency', '1'], env);
    expect(first.code).toBe(1);
    const runId = /run (cli-\S+) as/.exec(first.stdout)?.[1] ?? '';
    const keys = () => stub.received.map((request) => String(request.headers['idempotency-key']));
    expect(keys()).toHaveLength(3);
    keys().forEach((key) => expect(key).toMatch(new RegExp(`^${runId}:[0-9a-f]{32}:1$`)));
    expect(new Set(keys()).size).toBe(3);
    const [, second, third] = keys();

    // The failed line again, unchanged: the same key, under the same run id (kept in the journal).
    stub.answer({ json: { ok: true } });
    const rerun = await cli(['apply', input, '--as', '7'], env);
    expect(rerun.stdout).toContain(`run ${runId} as user 7: 1 ok, 2 skipped`);
    expect(keys().slice(3)).toEqual([third]);

    // An edited line is another change: another key.
    lines[2] = 'quotation,2,estado,y';
    writeFileSync(input, `${lines.join('\n')}\n`);
    await cli(['apply', input, '--as', '7'], env);
    expect(keys()).toHaveLength(5);
    expect(keys()[4]).toMatch(new RegExp(`^${runId}:[0-9a-f]{32}:1$`));
    expect(keys()[4]).not.toBe(second);
  });

  describe('a line is known by its content and occurrence, not its line number', () => {
    const ten = Array.from({ length: 10 }, (_, i) => `quotation,${i + 1},estado,x`);
    const csv = (lines: string[]) => `operation,id,field,value\n${lines.join('\n')}\n`;
    const keys = () => stub.received.map((request) => String(request.headers['idempotency-key']));

    it('a rerun after a line is inserted at the top sends that line alone: 1 upstream call, 11 audit rows for 11 ids', async () => {
      const input = file('ten.csv', csv(ten));
      expect((await cli(['apply', input, '--as', '3'], env)).code).toBe(0);
      expect(stub.received).toHaveLength(10);
      writeFileSync(input, csv(['quotation,11,estado,x', ...ten]));
      const rerun = await cli(['apply', input, '--as', '3'], env);
      expect(rerun.code).toBe(0);
      expect(stub.received).toHaveLength(11);
      expect(JSON.parse(stub.received[10]?.body ?? '')).toMatchObject({ id: '11' });
      expect(rerun.stdout).toContain(': 1 ok, 10 skipped; results in');
      expect(rerun.stdout).toContain('journal: 10 of the skipped lines were at another line number when applied');
      const logged = await rows();
      expect(logged).toHaveLength(11);
      expect(new Set(logged.map((row) => row.request_id)).size).toBe(11);
      expect(logged.map((row) => row.request_id).sort()).toEqual(keys().sort());
      // The results file speaks of this run's line numbers.
      const results = readFileSync(`${input}.results.csv`, 'utf8');
      expect(results).toContain('2,ok,\n');
      expect(results).toContain('3,skipped,applied by an earlier run (as line 2)\n');
    });

    it('removing and moving lines sends nothing again', async () => {
      const input = file('ten.csv', csv(ten));
      expect((await cli(['apply', input, '--as', '3'], env)).code).toBe(0);
      writeFileSync(input, csv([...ten.slice(6), ...ten.slice(0, 2), ten[4] ?? '']));
      const rerun = await cli(['apply', input, '--as', '3'], env);
      expect(rerun.code).toBe(0);
      expect(stub.received).toHaveLength(10);
      expect(rerun.stdout).toContain(': 7 skipped; results in');
      expect(rerun.stdout).toContain('journal: 7 of the skipped lines were at another line number');
      expect(await rows()).toHaveLength(10);
    });

    it('two identical lines are two changes with distinct keys (occurrences 1 and 2); a rerun sends neither, and a third copy alone', async () => {
      const input = file('twins.csv', csv(['quotation,5,estado,x', 'quotation,6,estado,x', 'quotation,5,estado,x']));
      expect((await cli(['apply', input, '--as', '3', '--concurrency', '1'], env)).code).toBe(0);
      const [first, , second] = keys();
      expect(first?.replace(/:1$/, ':2')).toBe(second);
      const again = await cli(['apply', input, '--as', '3'], env);
      expect(again.stdout).toContain(': 3 skipped; results in');
      expect(stub.received).toHaveLength(3);
      writeFileSync(input, csv(['quotation,5,estado,x', 'quotation,5,estado,x', 'quotation,6,estado,x', 'quotation,5,estado,x']));
      await cli(['apply', input, '--as', '3'], env);
      expect(keys().slice(3)).toEqual([first?.replace(/:1$/, ':3')]);
      expect(new Set((await rows()).map((row) => row.request_id)).size).toBe(4);
    });

    it('a journal of the earlier version (lines by number) is read by content: after an insert at the top the rerun sends the new line alone', async () => {
      const input = file('ten.csv', csv(ten));
      expect((await cli(['apply', input, '--as', '3'], env)).code).toBe(0);
      // The same run as the earlier version journaled it: `<line>\t<hash>`.
      const journal = readFileSync(`${input}.journal`, 'utf8').split('\n').filter(Boolean);
      const earlier = journal.map((text) =>
        text.startsWith('#') ? text : `${text.split('\t')[1]}\t${text.split('\t')[0]?.split(':')[0]}`,
      );
      writeFileSync(`${input}.journal`, `${earlier.join('\n')}\n`);
      writeFileSync(input, csv(['quotation,11,estado,x', ...ten]));
      const rerun = await cli(['apply', input, '--as', '3'], env);
      expect(rerun.code).toBe(0);
      expect(rerun.stderr).toContain('journal: 10 of its lines were recorded by an earlier version by line number');
      expect(stub.received).toHaveLength(11);
      expect(rerun.stdout).toContain(': 1 ok, 10 skipped; results in');
    });
  });

  it('an upstream that cannot be reached mid-run: lines wait with backoff and go on when it is back; only lines cut mid-request fail', async () => {
    const gate = await switchable(stub.url);
    stub.answer({ json: { ok: true }, delayMs: 5 });
    const input = file(
      'outage.csv',
      `operation,id,field,value\n${Array.from({ length: 200 }, (_, i) => `quotation,${i + 1},estado,x`).join('\n')}\n`,
    );
    let down = false;
    const ran = await cli(['apply', input, '--as', '5', '--concurrency', '4'], { ...env, UPSTREAM_BASE_URL: gate.url }, (child) => {
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      void until(() => stub.received.length >= 20).then(async () => {
        await gate.down();
        down = true;
        // Back once the run has found it unreachable: the backoff between tries is outage.test.ts's, on an injected clock.
        await until(() => stderr.includes('cannot be reached'));
        await gate.up();
      });
    });
    expect(down).toBe(true);
    expect(ran.stderr).toContain('nothing was sent; waiting up to 60 s');
    expect(ran.stderr).toMatch(/the upstream answers again after \d+\.\d s: going on/);
    const resultRows = readFileSync(`${input}.results.csv`, 'utf8').trim().split('\n').slice(1);
    const failed = resultRows.filter((row) => row.includes(',failed,'));
    // Only the lines whose connection was cut mid-request may have failed: at most --concurrency.
    expect(failed.length).toBeLessThanOrEqual(4);
    expect(resultRows).toHaveLength(200);
    expect(resultRows.length - failed.length).toBe(resultRows.filter((row) => row.includes(',ok,')).length);
    expect(ran.code).toBe(failed.length ? 1 : 0);
  });

  it('an upstream unreachable past --max-wait: the run stops (exit 1) with the lines waiting not sent and the command to resume; the rerun finishes', async () => {
    const gate = await switchable(stub.url);
    await gate.down();
    const input = file(
      'down.csv',
      `operation,id,field,value\n${Array.from({ length: 30 }, (_, i) => `quotation,${i + 1},estado,x`).join('\n')}\n`,
    );
    const ran = await cli(['apply', input, '--as', '5', '--concurrency', '3', '--max-wait', '1'], { ...env, UPSTREAM_BASE_URL: gate.url });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('the upstream could not be reached for 1 s: stopping');
    expect(ran.stderr).toContain(`to resume, run: cotizaciones apply ${input} --as 5 --concurrency 3 --max-wait 1`);
    expect(ran.stdout).toContain('stopped: the upstream could not be reached');
    const resultRows = readFileSync(`${input}.results.csv`, 'utf8').trim().split('\n').slice(1);
    expect(resultRows.length).toBeLessThanOrEqual(3);
    expect(resultRows.every((row) => row.includes(',failed,') && row.includes('not sent: the upstream could not be reached'))).toBe(true);
    expect(stub.received).toHaveLength(0);

    await gate.up();
    const rerun = await cli(['apply', input, '--as', '5', '--concurrency', '3', '--max-wait', '1'], {
      ...env,
      UPSTREAM_BASE_URL: gate.url,
    });
    expect(rerun.code).toBe(0);
    expect(stub.received).toHaveLength(30);
    // The earlier run's results are kept beside the new ones.
    expect(readFileSync(`${input}.results.1.csv`, 'utf8')).toContain('not sent');
    await gate.down();
  });

  it.each([
    ['every line applied: exit 3', false, 3, '2 ok;', 2],
    ['a line failed as well: exit 1, the summary naming both', true, 1, '1 ok, 1 failed', 1],
  ] as const)(
    'an activity log that cannot be reached: entries set aside, said in the summary; %s',
    async (_, oneFails, code, counts, setAside) => {
      if (oneFails) stub.answer((request) => (request.body.includes('"id":"2"') ? { status: 500, text: 'down' } : { json: { ok: true } }));
      const input = file('audit.csv', 'operation,id,field,value\nquotation,1,estado,x\nquotation,2,estado,x\n');
      const dead = join(dir, 'dead.jsonl');
      const ran = await cli(['apply', input, '--as', '5'], {
        ...env,
        ACTIVITY_LOG_URL: 'postgres://nobody@127.0.0.1:1/none',
        ACTIVITY_LOG_DEAD_LETTER: dead,
      });
      expect(ran.code).toBe(code);
      expect(ran.stdout).toContain(counts);
      expect(ran.stdout).toContain(
        `audit: ${setAside} entr${setAside === 1 ? 'y' : 'ies'} could not be written to the activity log and ${setAside === 1 ? 'was' : 'were'} set aside in ${dead}`,
      );
      expect(ran.stdout).toContain(`cotizaciones replay-dead-letter ${dead}`);
      expect(readFileSync(dead, 'utf8').trim().split('\n')).toHaveLength(setAside);
    },
    30_000,
  );

  it('bad bytes, an unclosed quote, an inexact NDJSON number: each its own malformed row, never sent; every line has one row', async () => {
    const csv = join(dir, 'bad.csv');
    writeFileSync(
      csv,
      Buffer.concat([
        Buffer.from('operation,id,field,value\nquotation,1,estado,x\nquotation,2,estado,caf'),
        Buffer.from([0xe9]),
        Buffer.from('\nquotation,3,estado,"open\nquotation,4,estado,y\nquotation,5,estado,z\n'),
      ]),
    );
    const ran = await cli(['apply', csv, '--as', '5', '--concurrency', '1'], env);
    expect(ran.code).toBe(1);
    const resultRows = readFileSync(`${csv}.results.csv`, 'utf8').trim().split('\n').slice(1).sort();
    expect(resultRows).toEqual([
      '2,ok,',
      '3,malformed,not valid UTF-8: save the file as UTF-8',
      '4,malformed,a quote opened on line 4 is not closed on it (a cell cannot span lines)',
      '5,ok,',
      '6,ok,',
    ]);
    expect(stub.received.map((request) => (JSON.parse(request.body) as { id: string }).id)).toEqual(['1', '4', '5']);

    const ndjson = file(
      'big.ndjson',
      '{"operation":"item","id":12345678901234567890,"delete":1}\n{"operation":"item","id":"12345678901234567890","delete":1}\n',
    );
    stub.received.length = 0;
    await cli(['apply', ndjson, '--as', '5'], env);
    expect(stub.received.map((request) => request.body)).toEqual(['{"id":"12345678901234567890","delete":1}']);
    expect(readFileSync(`${ndjson}.results.csv`, 'utf8')).toContain(
      '1,malformed,"the number 12345678901234567890 would not be sent as written',
    );
  });

  it("with OTEL_* set: one trace per line, each linked to the run's span, with its upstream call inside; nothing secret exported", async () => {
    const bodies: string[] = [];
    const receiver = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        bodies.push(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    }).listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    try {
      const input = file('traced.csv', 'operation,id,field,value\nquotation,1,estado,x\nquotation,2,estado,x\nitem,3,cantidad,2\n');
      const ran = await cli(['apply', input, '--as', '6'], {
        ...env,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as { port: number }).port}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      });
      expect(ran.code).toBe(0);
      // The run exported what it had before it exited.
      type Exported = {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes: Array<{ key: string; value: Record<string, unknown> }>;
        links?: Array<{ spanId: string }>;
      };
      const spans = bodies.flatMap((body) =>
        (JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Exported[] }> }> }).resourceSpans.flatMap((r) =>
          r.scopeSpans.flatMap((scope) => scope.spans),
        ),
      );
      const attribute = (span: Exported | undefined, key: string) =>
        Object.values(span?.attributes.find((a) => a.key === key)?.value ?? {})[0];
      const runSpan = spans.find((span) => span.name === 'cotizaciones apply');
      const runId = /run (cli-\S+) as/.exec(ran.stdout)?.[1];
      expect(attribute(runSpan, 'cotizaciones.run_id')).toBe(runId);
      const lines = spans.filter((span) => span.name.startsWith('line '));
      expect(
        lines.map((span) => [span.name, attribute(span, 'cotizaciones.line'), attribute(span, 'cotizaciones.line.outcome')]).sort(),
      ).toEqual([
        ['line item', 4, 'ok'],
        ['line quotation', 2, 'ok'],
        ['line quotation', 3, 'ok'],
      ]);
      expect(new Set(lines.map((span) => span.traceId)).size).toBe(3);
      for (const line of lines) {
        expect(line.links?.map((link) => link.spanId)).toEqual([runSpan?.spanId]);
        expect(spans.some((span) => span.parentSpanId === line.spanId && span.name.startsWith('POST /api/cotizaciones/'))).toBe(true);
      }
      expect(stub.received.map((request) => String(request.headers.traceparent).split('-')[1]).sort()).toEqual(
        lines.map((span) => span.traceId).sort(),
      );
      expect(bodies.join('\n')).not.toContain('cli-secret-token');
    } finally {
      receiver.close();
    }
  });

  it('--help prints the usage on stdout and --version the version, exit 0', async () => {
    const help = await cli(['--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: cotizaciones apply');
    expect(help.stdout).toContain('--max-wait');
    expect((await cli(['-h'], env)).stdout).toBe(help.stdout);
    const version = await cli(['--version'], env);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^cotizaciones \d+\.\d+\.\d+\n$/);
  });

  it('--dry-run prints the request each line would send and sends and writes nothing', async () => {
    const input = file('dry.csv', 'operation,id,field,value,idEmpresa,idUsuario\nquotation,5,benef_emp,,9,3\nquotation,6,estado,x,,\n');
    const ran = await cli(['apply', input, '--as', '7', '--dry-run'], env);
    expect(ran.code).toBe(0);
    expect(stub.received).toHaveLength(0);
    expect(ran.stdout).toContain(
      '2,dry-run,"POST /api/cotizaciones/update {""id"":""5"",""field"":""benef_emp"",""idEmpresa"":""9"",""idUsuario"":""3""}"',
    );
    expect(ran.stdout).toContain('3,dry-run,"POST /api/cotizaciones/update {""id"":""6"",""field"":""estado"",""value"":""x""}"');
    expect(() => readFileSync(db)).toThrow();
  });

  it('--dry-run of a long file shows its first 50 rows and says where the rest are', async () => {
    const input = file(
      'long-dry.csv',
      `operation,id,field,value\n${Array.from({ length: 200 }, (_, i) => `quotation,${i + 1},estado,x`).join('\n')}\n`,
    );
    const ran = await cli(['apply', input, '--as', '7', '--dry-run'], env);
    expect(ran.stdout.split('\n').filter((row) => row.includes(',dry-run,'))).toHaveLength(50);
    expect(ran.stdout).toContain(`… 150 more in ${input}.dry-run.csv`);
    expect(readFileSync(`${input}.dry-run.csv`, 'utf8').trim().split('\n')).toHaveLength(201);
  });

  it('--dry-run warns about what the contract silently does: a parameter not sent, an id that gets no audit row', async () => {
    const input = file(
      'warn.csv',
      'operation,id,field,value,idEmpresa,delete\nitem,5,cantidad,3,,1\nquotation,abc,estado,x,,\nquotation,6,estado,x,9,\nquotation,7,estado,x,,\n',
    );
    const ran = await cli(['apply', input, '--as', '7', '--dry-run'], env);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain(
      '2,dry-run,"POST /api/cotizaciones/items/update {""id"":""5"",""delete"":1}; warning: field, value not sent with these parameters"',
    );
    expect(ran.stdout).toContain(
      '3,dry-run,"POST /api/cotizaciones/update {""id"":""abc"",""field"":""estado"",""value"":""x""}; warning: no audit row: id ""abc"" is not a positive integer"',
    );
    expect(ran.stdout).toContain(
      '4,dry-run,"POST /api/cotizaciones/update {""id"":""6"",""field"":""estado"",""value"":""x""}; warning: idEmpresa not sent with these parameters"',
    );
    expect(ran.stdout).toContain('5,dry-run,"POST /api/cotizaciones/update {""id"":""7"",""field"":""estado"",""value"":""x""}"\n');
  });

  it('Ctrl-C: lines in flight finish and are audited, no new line starts, exit 1; the rerun applies only the rest', async () => {
    stub.answer({ json: { ok: true }, delayMs: 300 });
    const input = file(
      'long.csv',
      `operation,id,field,value\n${Array.from({ length: 40 }, (_, i) => `quotation,${i + 1},estado,x`).join('\n')}\n`,
    );
    const ran = await cli(['apply', input, '--as', '9', '--concurrency', '2'], env, (child) => {
      void until(() => stub.received.length >= 2).then(() => child.kill('SIGINT'));
    });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('SIGINT: no new line starts');
    // The way on, next to the stop message, and again at the end of the summary.
    expect(ran.stderr).toContain(`to resume, run: cotizaciones apply ${input} --as 9 --concurrency 2`);
    expect(ran.stdout.trim().split('\n').at(-1)).toBe(`to resume, run: cotizaciones apply ${input} --as 9 --concurrency 2`);
    expect(ran.stdout).toContain('interrupted');
    const applied = stub.received.length;
    expect(applied).toBeLessThan(40);
    expect((await rows()).length).toBe(applied);

    stub.answer({ json: { ok: true } });
    const rest = await cli(['apply', input, '--as', '9', '--concurrency', '8'], env);
    expect(rest.code).toBe(0);
    expect(stub.received).toHaveLength(40);
    expect(rest.stdout).toContain(`${applied} skipped`);
    expect((await rows()).map((row) => row.entity_id).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 40 }, (_, i) => String(i + 1)),
    );
  });

  it('a Ctrl-C that arrives twice at once (the terminal, then npm passing it on) is still one clean stop', async () => {
    stub.answer({ json: { ok: true }, delayMs: 300 });
    const input = file(
      'twice.csv',
      `operation,id,field,value\n${Array.from({ length: 20 }, (_, i) => `quotation,${i + 1},estado,x`).join('\n')}\n`,
    );
    const ran = await cli(['apply', input, '--as', '9', '--concurrency', '2'], env, (child) => {
      void until(() => stub.received.length >= 2).then(() => {
        process.kill(-child.pid!, 'SIGINT');
        process.kill(-child.pid!, 'SIGINT');
      });
    });
    expect(ran.code).toBe(1);
    expect(ran.stderr).not.toContain('again');
    expect(ran.stdout).toContain('interrupted');
    expect((await rows()).length).toBe(stub.received.length);
  });

  it('refuses the built-in demo upstream unless --demo says so, and then journals nothing', async () => {
    const input = file('demo.csv', 'operation,id,field,value\nquotation,12,estado,x\n');
    const noUpstream = { ...env, UPSTREAM_BASE_URL: '' };
    const refused = await cli(['apply', input, '--as', '1'], noUpstream);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('UPSTREAM_BASE_URL is unset');
    const demo = await cli(['apply', input, '--as', '1', '--demo'], noUpstream);
    expect(demo.code).toBe(0);
    expect(demo.stderr).toContain('to the built-in demo upstream');
    expect(() => readFileSync(`${input}.journal`)).toThrow();
  });

  it('refuses a journal written for another upstream: lines applied on one are not skipped on another', async () => {
    const input = file('target.csv', 'operation,id,field,value\nquotation,12,estado,x\n');
    expect((await cli(['apply', input, '--as', '1'], env)).code).toBe(0);
    const other = await cli(['apply', input, '--as', '1'], { ...env, UPSTREAM_BASE_URL: 'http://127.0.0.1:9/other/' });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`records a run against ${stub.url}`);
    expect(stub.received).toHaveLength(1);
  });

  it('a failed line says why in the results file (the cause the web reply leaves out)', async () => {
    stub.answer({ drop: true });
    const input = file('drop.csv', 'operation,id,field,value\nquotation,12,estado,x\n');
    const ran = await cli(['apply', input, '--as', '1'], env);
    expect(ran.code).toBe(1);
    expect(readFileSync(`${input}.results.csv`, 'utf8')).toMatch(/^2,failed,No se pudo actualizar la cotización\. \(.+\)$/m);
    expect(readFileSync(`${input}.results.csv`, 'utf8')).not.toContain('cli-secret-token');
    // An answer that is not JSON names its HTTP status.
    stub.answer({ status: 500, text: '<h1>Internal Server Error</h1>', contentType: 'text/html' });
    const again = await cli(['apply', file('500.csv', 'operation,id,field,value\nquotation,12,estado,x\n'), '--as', '1'], env);
    expect(again.code).toBe(1);
    expect(readFileSync(join(dir, '500.csv.results.csv'), 'utf8')).toContain(
      '2,failed,No se pudo actualizar la cotización. (upstream answered HTTP 500 with a body that is not JSON (30 chars))',
    );
  });

  it('refuses a per-user session token source: the command line has no web session', async () => {
    const ran = await cli(['apply', file('s.csv', 'operation,id\nquotation,1\n'), '--as', '1'], {
      ...env,
      UPSTREAM_TOKEN: '',
      UPSTREAM_TOKEN_SESSION_KEY: 'upstreamToken',
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('configuration error: UPSTREAM_TOKEN_SESSION_KEY');
    expect(stub.received).toHaveLength(0);
  });

  it('a kill -9 mid-run loses nothing the journal promised: the rerun applies every line not journaled', async () => {
    stub.answer({ json: { ok: true }, delayMs: 100 });
    const input = file(
      'killed.csv',
      `operation,id,field,value\n${Array.from({ length: 30 }, (_, i) => `item,${i + 1},cantidad,2`).join('\n')}\n`,
    );
    await cli(['apply', input, '--as', '9', '--concurrency', '1'], env, (child) => {
      void until(() => stub.received.length >= 5).then(() => child.kill('SIGKILL'));
    });
    // The header lines (#) say which upstream the journal is for and which run it is.
    const journaled = readFileSync(`${input}.journal`, 'utf8')
      .split('\n')
      .filter((text) => text && !text.startsWith('#')).length;
    expect(journaled).toBeGreaterThanOrEqual(3);
    stub.answer({ json: { ok: true } });
    const before = stub.received.length;
    const rest = await cli(['apply', input, '--as', '9'], env);
    expect(rest.code).toBe(0);
    expect(stub.received.length - before).toBe(30 - journaled);
  });

  it('a kill -9 in a fast run, the journal written in batches: the rerun sends again only what no batch named, and each line has one audit row', async () => {
    stub.answer({ json: { ok: true }, delayMs: 2 });
    const input = file(
      'batched.csv',
      `operation,id,field,value\n${Array.from({ length: 400 }, (_, i) => `item,${i + 1},cantidad,2`).join('\n')}\n`,
    );
    await cli(['apply', input, '--as', '9', '--concurrency', '8'], env, (child) => {
      void until(() => stub.received.length >= 150).then(() => child.kill('SIGKILL'));
    });
    stub.answer({ json: { ok: true } });
    const rest = await cli(['apply', input, '--as', '9'], env);
    expect(rest.code).toBe(0);
    const ids = (await rows()).map((row) => Number(row.entity_id)).sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
  }, 30_000);

  it("kill -9 while the activity log is unreachable: the journal keeps the entries pending, and the rerun writes each applied line's row once", async () => {
    stub.answer({ json: { ok: true }, delayMs: 20 });
    const input = file(
      'audit-kill.csv',
      `operation,id,field,value\n${Array.from({ length: 30 }, (_, i) => `item,${i + 1},cantidad,2`).join('\n')}\n`,
    );
    // Nothing listens there: every write fails and is retried; the entries wait in memory.
    const unreachable = { ...env, ACTIVITY_LOG_URL: 'postgres://nobody@127.0.0.1:1/none' };
    const journaled = () =>
      existsSync(`${input}.journal`)
        ? readFileSync(`${input}.journal`, 'utf8')
            .split('\n')
            .filter((text) => text && !text.startsWith('#'))
        : [];
    // Killed once some lines are journaled (in batches): those after the last batch are sent again by the rerun.
    await cli(['apply', input, '--as', '9', '--concurrency', '4'], unreachable, (child) => {
      void until(() => journaled().length >= 8).then(() => child.kill('SIGKILL'));
    });
    const journal = journaled();
    expect(journal.length).toBeGreaterThanOrEqual(8);
    // Each journaled line carries its entry: nothing says it was written.
    expect(journal.every((text) => text.split('\t').length === 3)).toBe(true);

    stub.answer({ json: { ok: true } });
    const rest = await cli(['apply', input, '--as', '9'], env);
    expect(rest.code).toBe(0);
    expect(rest.stderr).toContain(
      `an earlier run was stopped before ${journal.length} of its entries were confirmed: 0 are in the activity log, ${journal.length} written now`,
    );
    // Every line applied (some may have been sent twice, with the same key), and exactly one audit row each.
    expect(new Set(stub.received.map((request) => (JSON.parse(request.body) as { id: string }).id)).size).toBe(30);
    expect((await rows()).map((row) => Number(row.entity_id)).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(readFileSync(`${input}.journal`, 'utf8').trim().split('\n').at(-1)).toMatch(/^# audited \d+$/);
  }, 30_000);

  it('a rerun writes only the pending entries the activity log does not already hold: none twice', async () => {
    const input = file('pending.csv', 'operation,id,field,value\nquotation,1,estado,x\nquotation,2,estado,x\nquotation,3,estado,x\n');
    // A first run, then its journal rewritten as a run killed before any entry was confirmed.
    expect((await cli(['apply', input, '--as', '4'], env)).code).toBe(0);
    const lines = readFileSync(`${input}.journal`, 'utf8').split('\n').filter(Boolean);
    expect(lines.at(-1)).toBe('# audited 3');
    const [stored] = await rows();
    // Each line of the first run came with its entry; the ones written below replace them.
    const keys = lines.filter((text) => !text.startsWith('#')).map((text) => text.split('\t').slice(0, 2).join('\t'));
    expect(keys).toHaveLength(3);
    // Each entry's request id as the first run wrote it: the run id and the line's key.
    const entryOf = (n: number) =>
      JSON.stringify(
        entryRecord({ ...sampleEntryFor(n), requestId: `${stored?.request_id?.split(':')[0]}:${keys[n - 1]?.split('\t')[0]}` }),
      );
    writeFileSync(
      `${input}.journal`,
      `${lines.filter((text) => text.startsWith('# applied') || text.startsWith('# run')).join('\n')}\n${keys.map((key, i) => `${key}\t${entryOf(i + 1)}`).join('\n')}\n`,
    );
    // The log holds the entries of lines 2, 3 and 4 already (the first run wrote them).
    const rerun = await cli(['apply', input, '--as', '4'], env);
    expect(rerun.stderr).toContain(
      'an earlier run was stopped before 3 of its entries were confirmed: 3 are in the activity log, 0 written now',
    );
    expect((await rows()).length).toBe(3);
    // Ids the log does not hold are written: lose one row, and the next rerun brings it back.
    writeFileSync(
      `${input}.journal`,
      `${lines.filter((text) => text.startsWith('# applied') || text.startsWith('# run')).join('\n')}\n${keys.map((key, i) => `${key}\t${entryOf(i + 1).replace(`${key.split('\t')[0]}"`, `${key.split('\t')[0]}-lost"`)}`).join('\n')}\n`,
    );
    const again = await cli(['apply', input, '--as', '4'], env);
    expect(again.stderr).toContain('0 are in the activity log, 3 written now');
    expect((await rows()).length).toBe(6);
    expect(readFileSync(`${input}.journal`, 'utf8').trim().split('\n').at(-1)).toBe('# audited 3');
  });

  it.each([
    [['apply'], /apply needs the file of changes/],
    [['apply', 'x.csv'], /--as <user id> is required/],
    [['apply', 'missing.csv', '--as', '1'], /no such file: missing\.csv/],
    [['apply', 'FILE', '--as', '1', '--results', 'FILE'], /--results .* is the input file/],
    [['remove', 'x.csv', '--as', '1'], /unknown command "remove"/],
    [['apply', 'FILE', '--as', '1', '--concurrency', '0'], /--concurrency must be a whole number from 1/],
    [['apply', 'FILE', '--as', '1', '--rate', 'fast'], /--rate must be a whole number/],
  ])('usage error %j: exit 2 with one clear line and the usage, nothing sent', async (args, message) => {
    const input = file('u.csv', 'operation,id\nquotation,1\n');
    const ran = await cli(
      args.map((arg) => (arg === 'FILE' ? input : arg)),
      env,
    );
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(message);
    expect(ran.stderr).toContain('usage: cotizaciones apply');
    expect(stub.received).toHaveLength(0);
  });

  it('an unknown column is a usage error (exit 2) before anything is sent or written; an earlier results file stays', async () => {
    for (const dryRun of [[], ['--dry-run']]) {
      const bad = file('bad.csv', 'operation,id,valor\nquotation,1,x\n');
      const results = `${bad}${dryRun.length ? '.dry-run' : '.results'}.csv`;
      writeFileSync(results, 'earlier\n');
      const ran = await cli(['apply', bad, '--as', '1', ...dryRun], env);
      expect(ran.code).toBe(2);
      expect(ran.stderr).toContain('unknown column "valor"');
      expect(stub.received).toHaveLength(0);
      expect(readFileSync(results, 'utf8')).toBe('earlier\n');
      expect(
        readdirSync(dirname(bad))
          .filter((name) => name.startsWith('bad.csv'))
          .sort(),
      ).toEqual(['bad.csv', basename(results)]);
      rmSync(results);
    }
  });

  it('a configuration error: exit 2, one line naming the variable, no secret printed', async () => {
    const ran = await cli(['apply', file('c.csv', 'operation,id\nquotation,1\n'), '--as', '1'], {
      ...env,
      ACTIVITY_LOG_URL: 'postgres://user:very-secret-pw@127.0.0.1:1/x',
      UPSTREAM_TIMEOUT_MS: 'soon',
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/configuration error: UPSTREAM_TIMEOUT_MS/);
    expect(ran.stderr).not.toContain('very-secret-pw');
    expect(stub.received).toHaveLength(0);
  });

  it.skipIf(missing('PostgreSQL (TEST_POSTGRES_URL)', urls.postgres))(
    'writes the audit rows to PostgreSQL when ACTIVITY_LOG_URL says so (needs TEST_POSTGRES_URL)',
    async () => {
      const table = `activity_log_cli_${process.pid}`;
      try {
        const input = file('pg.csv', 'operation,id,field,value\nquotation,21,estado,x\nquotation,22,estado,y\n');
        const ran = await cli(['apply', input, '--as', '5'], { ...env, ACTIVITY_LOG_URL: urls.postgres ?? '', ACTIVITY_LOG_TABLE: table });
        expect(ran.code).toBe(0);
        expect((await rows(urls.postgres, table)).map((row) => [row.entity_id, row.user_id]).sort()).toEqual([
          ['21', '5'],
          ['22', '5'],
        ]);
      } finally {
        await dropTable(urls.postgres ?? '', table);
      }
    },
  );
});

describe('cotizaciones replay-dead-letter (the built CLI against SQLite)', () => {
  it('writes the set-aside entries, keeps nothing written in the file, and refuses options and bad configuration with exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-replay-'));
    const dead = join(dir, 'dead.jsonl');
    const entry = {
      createdAt: '2026-01-01T00:00:00.000Z',
      module: 'Cotizaciones',
      eventKey: 'k',
      description: 'd',
      entityType: 'cotizacion',
      entityId: '12',
      userId: '7',
      details: null,
      requestId: 'req-cli-1',
    };
    const record = JSON.stringify({ refusedAt: '2026-01-01T00:00:01.000Z', code: 'X', reason: 'r', entry });
    writeFileSync(dead, `${record}\n`);
    const env = { ACTIVITY_LOG_URL: `sqlite:${join(dir, 'activity.db')}`, ACTIVITY_LOG_DEAD_LETTER: dead };

    const ran = await cli(['replay-dead-letter'], env);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toBe(
      `replay-dead-letter: ${dead} → sqlite table activity_log: 1 written, 0 still refused, 0 unreadable, 0 not tried, 0 already stored, 0 failed the checks, 0 over 64 KiB\n`,
    );
    expect(readFileSync(dead, 'utf8')).toBe('');
    const store = await openSqlActivityLogStore(env.ACTIVITY_LOG_URL);
    expect(await store.recent(5)).toMatchObject([{ entity_id: '12', user_id: '7', event_key: 'k' }]);
    await store.close();

    // --from-log: the lines the server writes (behind a keeper's prefix), the one already stored skipped, one failing the
    // checks counted, a record another process printed inside its own line skipped and counted; the log left as it was.
    const log = join(dir, 'server.log');
    // The server's stderr line: every key of the entry, in the order the server writes them.
    const written = (refusedAt: string, overrides: Record<string, unknown>) => {
      const full = { ...entry, clientIp: null, userAgent: null, ...overrides };
      const { createdAt, module, eventKey, description, entityType, entityId, details, userId, requestId, clientIp, userAgent } = full;
      const ordered = { createdAt, module, eventKey, description, entityType, entityId, details, userId, requestId, clientIp, userAgent };
      return JSON.stringify({ refusedAt, code: 'ENOSPC', reason: 'no space', entry: ordered });
    };
    const again = written('2026-01-01T00:00:01.000Z', {});
    const forged = written('2026-01-01T00:00:02.000Z', { requestId: 'req-cli-2', clientIp: 'not-an-ip' });
    const found = written('2026-01-01T00:00:03.000Z', { entityId: '13', requestId: 'req-cli-3' });
    const planted = written('2026-01-01T00:00:04.000Z', { entityId: '66', requestId: 'req-cli-666', userId: '666' });
    const captured =
      `{"level":30,"msg":"listening"}\n2026-01-01T00:00:03.5Z ${again}\n2026-01-01T00:00:04Z ${forged}\n${found}\n` +
      `npm WARN ${planted}\n`;
    writeFileSync(log, captured);
    const fromLog = await cli(['replay-dead-letter', '--from-log', log], env);
    expect(fromLog).toMatchObject({ code: 1 });
    expect(fromLog.stdout).toBe(
      `replay-dead-letter: ${log} (captured log, left as it is) → sqlite table activity_log: 1 written, 0 still refused, 0 unreadable, 0 not tried, 1 already stored, 1 failed the checks, 0 over 64 KiB, 2 other lines skipped\n`,
    );
    expect(readFileSync(log, 'utf8')).toBe(captured);
    const after = await openSqlActivityLogStore(env.ACTIVITY_LOG_URL);
    expect((await after.recent(5)).map((row) => row.request_id)).toEqual(['req-cli-3', 'req-cli-1']);
    await after.close();

    expect(await cli(['replay-dead-letter', '--as', '7'], env)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('replay-dead-letter takes no option but --from-log (got --as)') as string,
    });
    expect(await cli(['replay-dead-letter', dead, '--from-log', log], env)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('not both') as string,
    });
    expect(await cli(['apply', 'x.csv', '--as', '7', '--from-log', log], env)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--from-log is replay-dead-letter's option") as string,
    });
    expect(await cli(['replay-dead-letter'], { ACTIVITY_LOG_URL: 'memory:' })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('ACTIVITY_LOG_URL must be sqlite:') as string,
    });
    expect(await cli(['replay-dead-letter'], { ACTIVITY_LOG_TABLE: 'bad table' })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('configuration error: ACTIVITY_LOG_TABLE') as string,
    });
    rmSync(dir, { recursive: true, force: true });
  });
});
