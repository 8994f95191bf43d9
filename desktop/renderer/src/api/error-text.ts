import type { ApiError } from './http';

type Translate = (key: string, named?: Record<string, unknown>) => string;
type HasKey = (key: string) => boolean;

/**
 * An API failure as the sentence the console shows: the role and the unreachable server in the
 * console's words, a known AppError code (`errors.codes.<area>/<reason>` in the i18n files) in the
 * user's language, else the daemon's own message.
 */
export function errorText(err: ApiError, t: Translate, te: HasKey): string {
  if (err.status === 403) return t('errors.forbidden');
  if (err.status === 0 && err.code === 'network/unreachable') return t('errors.unreachable');
  const key = err.code ? `errors.codes.${err.code.replace('/', '.')}` : null;
  return key && te(key) ? t(key) : err.message;
}
