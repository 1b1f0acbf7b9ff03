import { describe, expect, it } from 'vitest';
import { entryFit } from '../src/activity-log/entry-fit.js';
import { mysqlColumnLimit, postgresColumnLimit, type TableLimits } from '../src/activity-log/table-limits.js';
import { postgresCharset } from '../src/activity-log/column-charsets.js';
import { sampleEntry } from '../src/testing/index.js';

// Entries checked in memory against column definitions as information_schema gives them.

const mysqlColumn = (name: string, columnType: string, charset: string | null = null, nullable = true) => {
  const dataType = columnType.replace(/[( ].*$/, '');
  const declared = /\((\d+)\)/.exec(columnType)?.[1];
  const textBytes: Record<string, number> = { tinytext: 255, text: 65_535, mediumtext: 16_777_215, longtext: 4_294_967_295 };
  const isVarchar = dataType === 'varchar' || dataType === 'char';
  return mysqlColumnLimit({
    name,
    dataType,
    columnType,
    maxCharacters: isVarchar ? Number(declared) : (textBytes[dataType] ?? null),
    maxBytes: isVarchar ? Number(declared) * 4 : (textBytes[dataType] ?? null),
    charset,
    nullable: nullable ? 'YES' : 'NO',
  });
};
const limits = (...columns: ReturnType<typeof mysqlColumnLimit>[]): TableLimits => new Map(columns.map((c) => [c.name, c]));

describe('an entry against MySQL/MariaDB columns', () => {
  it('an entity id past an INT, or negative in an UNSIGNED column, is refused, saying the range', () => {
    const signed = entryFit(limits(mysqlColumn('entity_id', 'int(11)')));
    expect(signed.refusalOf(sampleEntry({ entityId: 2_147_483_647n }))).toBeUndefined();
    expect(signed.refusalOf(sampleEntry({ entityId: 2_147_483_648n }))?.message).toBe(
      "column entity_id (int(11)): the entity id is outside the column's range (-2147483648 to 2147483647)",
    );
    const unsigned = entryFit(limits(mysqlColumn('entity_id', 'bigint(20) unsigned')));
    expect(unsigned.refusalOf(sampleEntry({ entityId: 9_223_372_036_854_775_807n }))).toBeUndefined();
    expect(unsigned.refusalOf(sampleEntry({ entityId: -1n }))?.code).toBe('COLUMN_LIMIT');
  });

  it('latin1 stores Western European text and Windows-1252 punctuation, not other scripts', () => {
    const fit = entryFit(limits(mysqlColumn('description', 'text', 'latin1')));
    expect(fit.refusalOf(sampleEntry({ description: 'Actualizó la cotización — “ñandú” €' }))).toBeUndefined();
    expect(fit.refusalOf(sampleEntry({ description: 'Обновил' }))?.message).toBe(
      'column description (text): holds a character its character set (latin1) cannot store',
    );
  });

  it('VARCHAR counts characters (an emoji is one), TEXT counts bytes', () => {
    const fit = entryFit(limits(mysqlColumn('user_id', 'varchar(4)', 'utf8mb4'), mysqlColumn('description', 'tinytext', 'utf8mb4')));
    expect(fit.refusalOf(sampleEntry({ userId: '😀😀😀😀' }))).toBeUndefined();
    expect(fit.refusalOf(sampleEntry({ userId: '😀😀😀😀😀' }))?.message).toBe('column user_id (varchar(4)): too long: 5 > 4 characters');
    expect(fit.refusalOf(sampleEntry({ description: 'é'.repeat(127) }))).toBeUndefined();
    expect(fit.refusalOf(sampleEntry({ description: 'é'.repeat(128) }))?.message).toBe(
      'column description (tinytext): too long: 256 > 255 bytes',
    );
  });

  it('details: measured as their JSON text; NULL refused where the column takes none', () => {
    const fit = entryFit(limits(mysqlColumn('details', 'tinytext', 'utf8mb3', false)));
    expect(fit.refusalOf(sampleEntry({ details: { field: 'x'.repeat(200) } }))).toBeUndefined();
    expect(fit.refusalOf(sampleEntry({ details: { field: 'x'.repeat(250) } }))?.message).toBe(
      'column details (tinytext): too long: 262 > 255 bytes',
    );
    expect(fit.refusalOf(sampleEntry({ details: { nested: [{ field: '😀' }] } }))?.message).toMatch(/utf8mb3\) cannot store$/);
    expect(fit.refusalOf(sampleEntry({ details: null }))?.message).toBe(
      'column details (tinytext): no value, and the column takes no NULL',
    );
  });

  it('the user agent is cut to its column, never refused for its length; the request id is never cut', () => {
    const fit = entryFit(limits(mysqlColumn('user_agent', 'varchar(32)', 'utf8mb4'), mysqlColumn('request_id', 'varchar(8)', 'utf8mb4')));
    const ua = 'Mozilla/5.0 '.repeat(10);
    expect(fit.refusalOf(sampleEntry({ userAgent: ua, requestId: 'r'.repeat(8) }))).toBeUndefined();
    expect(fit.userAgent(ua)).toBe('Mozilla/5.0 Moz…[cut: 120 bytes]');
    expect(fit.userAgent('short')).toBe('short');
    expect(fit.refusalOf(sampleEntry({ requestId: 'r'.repeat(9) }))?.message).toBe(
      'column request_id (varchar(8)): too long: 9 > 8 characters',
    );
  });

  it('unknown columns and a table not found refuse nothing', () => {
    const fit = entryFit(new Map());
    expect(fit.refusalOf(sampleEntry({ userId: 'u'.repeat(10_000), entityId: -5n }))).toBeUndefined();
    expect(fit.userAgent('x'.repeat(10_000))).toHaveLength(10_000);
  });
});

describe('an entry against PostgreSQL columns', () => {
  const column = (name: string, dataType: string, maxCharacters: number | null = null) =>
    postgresColumnLimit({ name, dataType, maxCharacters, nullable: 'YES' }, postgresCharset('UTF8'));

  it('no NUL in a text value, nor in jsonb details; a NUL in details written to a text column is escaped, so it fits', () => {
    const text = entryFit(limits(column('description', 'text'), column('details', 'text')));
    expect(text.refusalOf(sampleEntry({ description: 'a\u0000b' }))?.message).toBe(
      'column description (text): holds a character its character set (UTF8) cannot store',
    );
    expect(text.refusalOf(sampleEntry({ details: { field: 'a\u0000b' } }))).toBeUndefined();
    const jsonb = entryFit(limits(column('details', 'jsonb')));
    expect(jsonb.refusalOf(sampleEntry({ details: { field: 'a\u0000b' } }))?.message).toMatch(
      /^column details \(jsonb\): holds a character/,
    );
  });

  it('smallint, integer and bigint ranges; character varying counts characters', () => {
    const fit = entryFit(limits(column('entity_id', 'integer'), column('request_id', 'character varying', 4)));
    expect(fit.refusalOf(sampleEntry({ entityId: -2_147_483_649n, requestId: 'r' }))?.message).toMatch(/^column entity_id \(integer\)/);
    expect(fit.refusalOf(sampleEntry({ requestId: 'ñññññ' }))?.message).toBe(
      'column request_id (character varying(4)): too long: 5 > 4 characters',
    );
  });
});
