import { describe, expect, it } from 'vitest';
import { decodeOem } from './codepages.js';
import { parseQwinsta } from './qwinsta.js';

const english = [
  ' SESSIONNAME       USERNAME                 ID  STATE   TYPE        DEVICE ',
  ' services                                    0  Disc                        ',
  '>console           Administrator             1  Active                      ',
  ' rdp-tcp#12        jdoe                      2  Active  rdpwd               ',
  '                   alice                     3  Disc                        ',
  ' rdp-tcp                                 65536  Listen  rdpwd               ',
  '',
].join('\r\n');

const russian = [
  ' СЕАНС             ПОЛЬЗОВАТЕЛЬ             ID  СТАТУС  ТИП         УСТР-ВО ',
  ' services                                    0  Диск                        ',
  '>console           Администратор             1  Активно                     ',
  ' rdp-tcp#3         Иванов                    4  Активно rdpwd               ',
  ' rdp-tcp                                 65536  Прием   rdpwd               ',
].join('\r\n');

describe('parseQwinsta', () => {
  it('reads English Windows output', () => {
    expect(parseQwinsta(english)).toEqual([
      { session_name: 'services', username: '', id: 0, state: 'Disc', type: '', device: '' },
      { session_name: 'console', username: 'Administrator', id: 1, state: 'Active', type: '', device: '' },
      { session_name: 'rdp-tcp#12', username: 'jdoe', id: 2, state: 'Active', type: 'rdpwd', device: '' },
      { session_name: '', username: 'alice', id: 3, state: 'Disc', type: '', device: '' },
      { session_name: 'rdp-tcp', username: '', id: 65536, state: 'Listen', type: 'rdpwd', device: '' },
    ]);
  });

  it('reads Russian Windows output and maps states to English', () => {
    expect(parseQwinsta(russian)).toEqual([
      { session_name: 'services', username: '', id: 0, state: 'Disc', type: '', device: '' },
      { session_name: 'console', username: 'Администратор', id: 1, state: 'Active', type: '', device: '' },
      { session_name: 'rdp-tcp#3', username: 'Иванов', id: 4, state: 'Active', type: 'rdpwd', device: '' },
      { session_name: 'rdp-tcp', username: '', id: 65536, state: 'Listen', type: 'rdpwd', device: '' },
    ]);
  });

  it('reads Russian output decoded from cp866 bytes', () => {
    // "СЕАНС" and "Активно" as cmd.exe writes them on a Russian host.
    const bytes = Buffer.concat([
      Buffer.from(' '),
      Buffer.from([0x91, 0x85, 0x80, 0x8d, 0x91]),
      Buffer.from('             USER                     ID  STATE   TYPE        DEVICE \r\n>console           admin                     1  '),
      Buffer.from([0x80, 0xaa, 0xe2, 0xa8, 0xa2, 0xad, 0xae]),
      Buffer.from('                     \r\n'),
    ]);
    const text = decodeOem(bytes, 866);
    expect(text).toContain('СЕАНС');
    expect(parseQwinsta(text)).toEqual([{ session_name: 'console', username: 'admin', id: 1, state: 'Active', type: '', device: '' }]);
  });

  it('keeps a state it does not know as printed, and skips lines without an id', () => {
    const text = `${english.split('\r\n')[0]}\r\n garbage line\r\n rdp-tcp#1         bob                       7  Weird   rdpwd\r\n`;
    expect(parseQwinsta(text)).toEqual([{ session_name: 'rdp-tcp#1', username: 'bob', id: 7, state: 'Weird', type: 'rdpwd', device: '' }]);
  });

  it('returns nothing for text without a header', () => {
    expect(parseQwinsta('No session exists for *\r\n')).toEqual([]);
  });
});

describe('decodeOem', () => {
  it('decodes cp437 box drawing and accents and cp866 Cyrillic', () => {
    expect(decodeOem(Buffer.from([0x82, 0xc4, 0x41]), 437)).toBe('é─A');
    expect(decodeOem(Buffer.from([0x8f, 0xe0, 0xa8, 0xa2, 0xa5, 0xe2, 0xf0]), 866)).toBe('ПриветЁ');
  });
});
