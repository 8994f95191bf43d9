import { describe, expect, it } from 'vitest';
import { csvField, csvRow, consoleZone, fromInputText, stepInputText } from './format';

describe('csvField', () => {
  it.each([
    ['plain', 'plain'],
    ['=1+1', "'=1+1"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['-2+3', "'-2+3"],
    // After a separator a locale that splits on ; (or a reader that ignores quotes) starts a new cell.
    ['ok;=HYPERLINK("http://x")', `"ok;'=HYPERLINK(""http://x"")"`],
    ['a,+cmd|calc', `"a,'+cmd|calc"`],
    ['a; @x', `"a; '@x"`],
    ['a;b', '"a;b"'],
    ['10.0.0.1, 10.0.0.2', '"10.0.0.1, 10.0.0.2"'],
    [null, ''],
    [{ k: 'v' }, '"{""k"":""v""}"'],
  ])('%j → %s', (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });

  it('joins a row with commas', () => {
    expect(csvRow(['a', '=b', 'c;=d'])).toBe(`a,'=b,"c;'=d"`);
  });
});

describe('typed dates', () => {
  it.each([
    ['27/11/2026 10:00', '2026-11-27T10:00:00'],
    ['27.11.2026 10:00', '2026-11-27T10:00:00'],
    ['2026-11-27 10:00', '2026-11-27T10:00:00'],
    ['2026-11-27T10:00', '2026-11-27T10:00:00'],
    [' 2026-11-27T10:00:30 ', '2026-11-27T10:00:30'],
    ['2026-11-27', '2026-11-27T00:00:00'],
    ['31/02/2026 10:00', null],
    ['2026-02-31 10:00', null],
    ['2026-11-27 24:00', null],
    ['11/27/2026 10:00', null],
    ['yesterday', null],
  ])('reads %j with time as %j', (text, value) => {
    expect(fromInputText(text, true)).toBe(value);
  });

  it('reads a day alone without a time, in either order', () => {
    expect(fromInputText('2026-11-27', false)).toBe('2026-11-27');
    expect(fromInputText('27.11.2026', false)).toBe('2026-11-27');
    expect(fromInputText('2026-11-27 10:00', false)).toBeNull();
  });

  it.each([
    ['31/12/2026 23:59', 0, 1, '01/01/2027 23:59'],
    ['31/12/2026 23:59', 4, 1, '31/01/2027 23:59'],
    ['31/12/2026 23:59', 8, -1, '31/12/2025 23:59'],
    ['31/12/2026 23:59', 12, 1, '01/01/2027 00:59'],
    ['31/12/2026 23:59', 15, 1, '01/01/2027 00:00'],
    ['2026-11-27 10:00', 0, 1, '2027-11-27 10:00'],
    ['2026-11-27 10:00', 9, -1, '2026-11-26 10:00'],
  ])('steps %j at caret %i by %i to %j', (text, caret, delta, next) => {
    expect(stepInputText(text, caret, delta, 'en', true)).toBe(next);
  });

  it('names the console zone with its offset', () => {
    expect(consoleZone(Date.parse('2026-11-27T10:00:00Z'))).toMatch(/(^UTC$)|(^UTC[+−]\d+(:\d\d)?$)|(^\S+, UTC([+−]\d+(:\d\d)?)?$)/);
  });
});
