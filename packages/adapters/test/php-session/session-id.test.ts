import { describe, expect, it } from 'vitest';
import { sessionIdFromCookies } from '../../src/php-session/session-id.js';

const id = 'abcdefghijklmnopqrstuvwxyz';
const other = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

describe('the session id in a Cookie header, as PHP reads it', () => {
  it('is the first cookie of the name, whatever follows', () => {
    expect(sessionIdFromCookies(`a=1; PHPSESSID=${id}; PHPSESSID=${other}`, 'PHPSESSID')).toBe(id);
    expect(sessionIdFromCookies(`PHPSESSID=%2e%2e; PHPSESSID=${other}`, 'PHPSESSID')).toBeUndefined();
  });

  it('is URL-decoded before the alphabet is checked', () => {
    expect(sessionIdFromCookies(`PHPSESSID=${id.slice(0, 25)}%2D`, 'PHPSESSID')).toBe(`${id.slice(0, 25)}-`);
    expect(sessionIdFromCookies(`PHPSESSID=${id}%2F`, 'PHPSESSID')).toBeUndefined();
  });

  it('is none when the value cannot be decoded, is quoted or the name only looks alike', () => {
    expect(sessionIdFromCookies(`PHPSESSID=${id}%ZZ`, 'PHPSESSID')).toBeUndefined();
    expect(sessionIdFromCookies(`PHPSESSID=${id}%E0%A4%A`, 'PHPSESSID')).toBeUndefined();
    expect(sessionIdFromCookies(`PHPSESSID="${id}"`, 'PHPSESSID')).toBeUndefined();
    expect(sessionIdFromCookies(`XPHPSESSID=${id}; phpsessid=${id}`, 'PHPSESSID')).toBeUndefined();
    expect(sessionIdFromCookies(`PHPSESSID ; other=${id}`, 'PHPSESSID')).toBeUndefined();
  });

  it('skips pairs without a value and spaces around names and values', () => {
    expect(sessionIdFromCookies(`flag;  PHPSESSID = ${id} ;x=1`, 'PHPSESSID')).toBe(id);
    expect(sessionIdFromCookies(undefined, 'PHPSESSID')).toBeUndefined();
    expect(sessionIdFromCookies('', 'PHPSESSID')).toBeUndefined();
  });
});
