import { createI18n } from 'vue-i18n';
import { LANGUAGES, type Language } from '../../../../shared/src/notify.schema';
import en from './en';
import ru from './ru';
import { mobileMessages } from '../mobile/mobile.i18n';
import { agentsMessages } from '../features/agents/agents.i18n';

/** The console speaks the languages notifications are written in. */
export const LOCALES = LANGUAGES;
export type Locale = Language;

/** The remembered language, else the browser's when it is Russian, else English. */
export function initialLocale(stored: string | null, browser: string): Locale {
  if (stored === 'en' || stored === 'ru') return stored;
  return browser.toLowerCase().startsWith('ru') ? 'ru' : 'en';
}

export function createAppI18n(locale: Locale) {
  return createI18n({
    legacy: false,
    locale,
    fallbackLocale: 'en',
    messages: { en: { ...en, mobile: mobileMessages.en, agents: agentsMessages.en }, ru: { ...ru, mobile: mobileMessages.ru, agents: agentsMessages.ru } },
    datetimeFormats: {
      en: { short: { hour: '2-digit', minute: '2-digit' }, long: { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' } },
      ru: { short: { hour: '2-digit', minute: '2-digit' }, long: { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' } },
    },
  });
}
