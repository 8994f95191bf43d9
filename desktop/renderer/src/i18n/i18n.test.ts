import { describe, expect, it } from 'vitest';
import { createAppI18n, ruPlural } from './index';

type Tree = { [key: string]: string | Tree };

/** Every message of a tree as `path → text`. */
function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(tree)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string') out.set(key, v);
    else for (const [kk, vv] of flatten(v, key)) out.set(kk, vv);
  }
  return out;
}

const i18n = createAppI18n('en');
const messages = i18n.global.messages.value as unknown as Record<'en' | 'ru', Tree>;
const en = flatten(messages.en);
const ru = flatten(messages.ru);
const forms = (text: string) => text.split(' | ').length;

describe('console messages', () => {
  it('has every key in both languages (the main files, the mobile and agents screens)', () => {
    expect([...en.keys()].filter((k) => !ru.has(k))).toEqual([]);
    expect([...ru.keys()].filter((k) => !en.has(k))).toEqual([]);
    expect(en.size).toBeGreaterThan(500);
  });

  it('has no empty message', () => {
    expect([...en, ...ru].filter(([, text]) => text.trim() === '').map(([k]) => k)).toEqual([]);
  });

  it('writes plural forms as the rule says: English one | other, Russian one | few | many (or one label form)', () => {
    expect([...en].filter(([, text]) => ![1, 2].includes(forms(text))).map(([k]) => k)).toEqual([]);
    expect([...ru].filter(([, text]) => ![1, 3].includes(forms(text))).map(([k]) => k)).toEqual([]);
    // A number that changes the English wording changes the Russian one too, or Russian avoids it with a label.
    expect([...en].filter(([k, text]) => forms(text) === 1 && forms(ru.get(k) ?? '') === 3).map(([k]) => k)).toEqual([]);
  });
});

describe('plural forms', () => {
  it('picks the Russian form by the last digits', () => {
    expect([1, 21, 101].map((n) => ruPlural(n, 3))).toEqual([0, 0, 0]);
    expect([2, 3, 4, 22, 104].map((n) => ruPlural(n, 3))).toEqual([1, 1, 1, 1, 1]);
    expect([0, 5, 11, 12, 14, 19, 111, 25].map((n) => ruPlural(n, 3))).toEqual([2, 2, 2, 2, 2, 2, 2, 2]);
  });

  it('reads the messages in both languages', () => {
    const ruI18n = createAppI18n('ru').global;
    const t = (n: number) => ruI18n.t('maintenance.activeCount', { n }, n);
    expect([t(1), t(3), t(5), t(11), t(21)]).toEqual([
      'Действует 1 окно обслуживания',
      'Действуют 3 окна обслуживания',
      'Действуют 5 окон обслуживания',
      'Действуют 11 окон обслуживания',
      'Действует 21 окно обслуживания',
    ]);
    const enT = i18n.global.t;
    expect([enT('events.exported', { count: 1 }, 1), enT('events.exported', { count: 7 }, 7)]).toEqual(['Exported 1 row', 'Exported 7 rows']);
  });
});
