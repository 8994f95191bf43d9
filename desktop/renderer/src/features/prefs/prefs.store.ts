import { defineStore } from 'pinia';
import { ref, watch } from 'vue';
import { initialLocale, type Locale } from '../../i18n';

export type Theme = 'dark' | 'light';
const THEME_KEY = 'sac.theme';
const LOCALE_KEY = 'sac.locale';

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Theme and language, remembered in localStorage and applied to the document at once. */
export const usePrefsStore = defineStore('prefs', () => {
  const storedTheme = read(THEME_KEY);
  const theme = ref<Theme>(
    storedTheme === 'light' || storedTheme === 'dark' ? storedTheme : window.matchMedia?.('(prefers-color-scheme: light)').matches ? 'light' : 'dark',
  );
  const locale = ref<Locale>(initialLocale(read(LOCALE_KEY), navigator.language ?? 'en'));

  watch(
    theme,
    (t) => {
      document.documentElement.dataset.theme = t;
      localStorage.setItem(THEME_KEY, t);
    },
    { immediate: true },
  );
  watch(
    locale,
    (l) => {
      document.documentElement.lang = l;
      localStorage.setItem(LOCALE_KEY, l);
    },
    { immediate: true },
  );

  const toggleTheme = () => (theme.value = theme.value === 'dark' ? 'light' : 'dark');
  return { theme, locale, toggleTheme };
});
