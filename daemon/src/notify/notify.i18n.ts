import type { Severity } from '../../../shared/src/index.js';
import type { Language } from './notify.types.js';

/** Every phrase SAC puts into a notification or a report, in each language. */
const PHRASES = {
  en: {
    severity: { info: 'INFO', warning: 'WARNING', high: 'HIGH', critical: 'CRITICAL' } as Record<Severity, string>,
    host: 'Host',
    user: 'User',
    ip: 'IP',
    time: 'Time',
    type: 'Type',
    events: 'Events',
    first_seen: 'First seen',
    last_seen: 'Last seen',
    problem_opened: 'Problem opened',
    problem_resolved: 'Problem resolved',
    test_title: 'SAC test message',
    test_body: (channel: string, by: string) => `The ${channel} channel works. Sent by ${by}.`,
    lock_title: 'Console sign-in locked',
    lock_body: (user: string, attempts: number, ip: string) => `User "${user}": ${attempts} failed sign-in attempts from ${ip}.`,
    lock_until: 'Locked until',
    unknown_ip: 'unknown address',
    report_title: (day: string) => `Daily SSH/RDP report ${day}`,
    report_period: 'Period',
    report_totals: 'Totals',
    report_hosts: 'Hosts',
    report_platform: 'Platform',
    report_success: 'Successful logins',
    report_failed: 'Failed logins',
    report_bans: 'Active bans',
    report_top_ips: 'Top failed IPs',
    report_users: 'Active users',
    report_reported_at: 'Reported at',
    report_no_data: 'No daily agent reports were received in this period.',
    report_open: 'Open the full report in SAC.',
    acknowledge: 'Acknowledge',
  },
  ru: {
    severity: { info: 'ИНФО', warning: 'ПРЕДУПРЕЖДЕНИЕ', high: 'ВЫСОКАЯ', critical: 'КРИТИЧЕСКАЯ' } as Record<Severity, string>,
    host: 'Хост',
    user: 'Пользователь',
    ip: 'IP',
    time: 'Время',
    type: 'Тип',
    events: 'Событий',
    first_seen: 'Впервые',
    last_seen: 'Последнее',
    problem_opened: 'Открыта проблема',
    problem_resolved: 'Проблема решена',
    test_title: 'Тестовое сообщение SAC',
    test_body: (channel: string, by: string) => `Канал ${channel} работает. Отправил ${by}.`,
    lock_title: 'Вход в консоль заблокирован',
    lock_body: (user: string, attempts: number, ip: string) => `Пользователь «${user}»: ${attempts} неудачных попыток входа с ${ip}.`,
    lock_until: 'Заблокирован до',
    unknown_ip: 'неизвестного адреса',
    report_title: (day: string) => `Ежедневный отчёт SSH/RDP за ${day}`,
    report_period: 'Период',
    report_totals: 'Итого',
    report_hosts: 'Хостов',
    report_platform: 'Платформа',
    report_success: 'Успешных входов',
    report_failed: 'Неудачных входов',
    report_bans: 'Активных банов',
    report_top_ips: 'Топ IP с неудачами',
    report_users: 'Активные пользователи',
    report_reported_at: 'Отчёт агента',
    report_no_data: 'За этот период ежедневные отчёты агентов не поступали.',
    report_open: 'Полный отчёт открывается в SAC.',
    acknowledge: 'Подтвердить',
  },
} as const;

export type Phrases = (typeof PHRASES)['en'];

/** The phrase book of a language. */
export function phrases(lang: Language): Phrases {
  return PHRASES[lang] as Phrases;
}
