import { createI18n } from 'vue-i18n';
import { LANGUAGES, type Language } from '../../../../shared/src/notify.schema';
import en from './en';
import ru from './ru';
import { mobileMessages } from '../mobile/mobile.i18n';
import { agentsMessages } from '../features/agents/agents.i18n';
import { loginsMessages } from '../features/logins/logins.i18n';

/** The console speaks the languages notifications are written in. */
export const LOCALES = LANGUAGES;
export type Locale = Language;

/** The remembered language, else the browser's when it is Russian, else English. */
export function initialLocale(stored: string | null, browser: string): Locale {
  if (stored === 'en' || stored === 'ru') return stored;
  return browser.toLowerCase().startsWith('ru') ? 'ru' : 'en';
}

/**
 * Russian plural forms, the one plural rule of the console. A message that depends on a number is
 * written with forms separated by `|` — English `one | other`, Russian `one | few | many` (1 окно,
 * 2 окна, 5 окон; 11–14 take "many") — and called `t(key, { count }, count)`. A Russian message
 * may also avoid the forms with a label ("Выбрано: {count}"), then it has one form.
 */
export function ruPlural(choice: number, choicesLength: number): number {
  if (choicesLength < 3) return choice === 1 ? 0 : Math.min(1, choicesLength - 1);
  const n = Math.abs(choice) % 100;
  const last = n % 10;
  if (n >= 11 && n <= 14) return 2;
  if (last === 1) return 0;
  if (last >= 2 && last <= 4) return 1;
  return 2;
}

export function createAppI18n(locale: Locale) {
  return createI18n({
    legacy: false,
    locale,
    fallbackLocale: 'en',
    pluralRules: { ru: ruPlural },
    messages: { en: { ...en, mobile: mobileMessages.en, agents: agentsMessages.en, logins: loginsMessages.en }, ru: { ...ru, mobile: mobileMessages.ru, agents: agentsMessages.ru, logins: loginsMessages.ru } },
    datetimeFormats: {
      en: { short: { hour: '2-digit', minute: '2-digit' }, long: { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' } },
      ru: { short: { hour: '2-digit', minute: '2-digit' }, long: { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' } },
    },
  });
}
