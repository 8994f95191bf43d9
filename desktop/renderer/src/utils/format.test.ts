import { describe, expect, it } from 'vitest';
import { csvField, csvRow } from './format';

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
