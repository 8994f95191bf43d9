import { describe, expect, it } from 'vitest';
import { parseQwinsta } from './qwinsta.js';
import { parseCommandId, parseFault, parseReceive, parseShellId } from './wsman.js';

/*
 * Agents post qwinsta output and WinRM replies come from whatever answers at the target: both
 * parsers get 256 KB shaped to make backtracking patterns quadratic. Linear parsing takes a few
 * milliseconds here; the bound is generous (the quadratic parsers took seconds to minutes).
 */
const SIZE = 256 * 1024;
const BOUND_MS = 1_500;
const HEADER = ' SESSIONNAME       USERNAME                 ID  STATE   TYPE        DEVICE ';
const fill = (unit: string, size = SIZE) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

function timed<T>(parse: () => T): { result: T; ms: number } {
  const started = performance.now();
  const result = parse();
  return { result, ms: performance.now() - started };
}

const QWINSTA_SHAPES: Record<string, string> = {
  'a padded row between the user-name and type columns': `${HEADER}\r\n rdp-tcp#1  bob${fill(' ', SIZE - 200)}x\r\n`,
  'a header whose columns are spread far apart': ` SESSIONNAME USERNAME ID STATE${fill(' ', SIZE / 2)}TYPE DEVICE\r\n x${fill(' ', SIZE / 2 - 40)}7 Active${fill(' 1', 1000)}\r\n`,
  'a header of many columns': `${fill(' ID', SIZE)}\r\n${fill('1 ', 4096)}\r\n`,
  'no newline at all': fill('ID 1 ', SIZE),
  'many short rows': `${HEADER}\r\n${fill(' a 1 b\r\n')}`,
  'runs of digits and spaces in a row': `${HEADER}\r\n ${fill('1 ')}\r\n`,
};

const XML_SHAPES: Record<string, string> = {
  'unclosed Message elements in a fault': `<s:Fault>${fill('<f:Message>a')}`,
  'Stream tags without an end': `<rsp:Stream Name="stdout"${fill(' <rsp:Stream Name="stdout"')}`,
  'deep unclosed nesting': fill('<a:b>'),
  'WSManFault tags without a Code': `<s:Fault>${fill('<f:WSManFault x="1" ')}>`,
  'a long prefix without colon or end': `<${fill('a')}`,
  'opening brackets only': fill('<'),
  'CommandState without an end': fill('<rsp:CommandState State="x'),
  'a fault text of numeric entities': `<s:Fault><s:Text>${fill('&#99999999;')}</s:Text></s:Fault>`,
};

describe('parsers on 256 KB of adversarial input', () => {
  it.each(Object.entries(QWINSTA_SHAPES))('parseQwinsta: %s', (_, text) => {
    const { result, ms } = timed(() => parseQwinsta(text));
    expect(Array.isArray(result)).toBe(true);
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it.each(Object.entries(XML_SHAPES))('WS-Man replies: %s', (_, xml) => {
    const { ms } = timed(() => [parseFault(xml), parseReceive(xml), parseShellId(xml), parseCommandId(xml)]);
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it('still reads the rows of real output after a skipped over-long line', () => {
    const text = `${HEADER}\r\n${fill(' ', 4096)}\r\n rdp-tcp#12        jdoe                      2  Active  rdpwd               \r\n`;
    expect(parseQwinsta(text)).toEqual([{ session_name: 'rdp-tcp#12', username: 'jdoe', id: 2, state: 'Active', type: 'rdpwd', device: '' }]);
  });

  it('keeps a numeric entity above U+10FFFF as written instead of throwing', () => {
    expect(parseFault('<s:Fault><s:Text>bad &#99999999; code</s:Text></s:Fault>')?.reason).toBe('bad &#99999999; code');
  });
});
