import { describe, expect, it } from 'vitest';
import { createAppI18n } from '../../i18n';
import { problemTitle } from './problem-title';

const HOSTS = Array.from({ length: 13 }, (_, i) => `WS${String(i + 1).padStart(2, '0')}`);

/**
 * Titles as the daemon's title functions write them (`hardwareChangeTitle`, `formatSilence`,
 * `loginAfterFailuresTitle`, `distributedBruteforceTitle`, `massSilenceTitle`; the renderer may
 * not import the daemon, so they are written out) and the console's Russian for them.
 */
const CASES: [rule: string, title: string, ru: string][] = [
  ['rdg_flap', 'RD Gateway flap: anna → 10.0.0.5', 'Флаппинг RD Gateway: anna → 10.0.0.5'],
  ['hardware_changed', 'Hardware changed on DC01: memory, disks', 'Оборудование изменилось на DC01: память, диски'],
  ['host_silence', 'No heartbeat from web-01 for 5 h 3 min', 'Нет heartbeat от web-01 уже 5 ч 3 мин'],
  ['host_silence', 'No heartbeat from web-01 for 40 s', 'Нет heartbeat от web-01 уже 40 с'],
  ['login_after_failures', 'Login of root on web-01 from 203.0.113.7 after 21 failed logins', 'Вход root на web-01 с 203.0.113.7 после 21 неудачной попытки'],
  ['login_after_failures', 'Login of root on web-01 from 203.0.113.7 after 5 failed logins', 'Вход root на web-01 с 203.0.113.7 после 5 неудачных попыток'],
  ['distributed_bruteforce', 'Failed logins from 198.51.100.9 on 3 hosts: DC01, RDS01, web-01', 'Неудачные входы с 198.51.100.9 на 3 хостах: DC01, RDS01, web-01'],
  ['mass_silence', `13 of 21 hosts went silent together: ${HOSTS.slice(0, 10).join(', ')} and 3 more`, `13 из 21 хоста замолчали разом: ${HOSTS.slice(0, 10).join(', ')} и ещё 3`],
];

describe('problem titles SAC builds, in the console language', () => {
  const ru = createAppI18n('ru').global.t as never;
  const en = createAppI18n('en').global.t as never;

  it.each(CASES)('%s: %s', (rule, title, russian) => {
    expect(problemTitle({ rule, title }, ru)).toBe(russian);
    expect(problemTitle({ rule, title }, en)).toBe(title);
  });

  it("keeps an agent's title, and a title its rule's pattern does not read, as stored", () => {
    expect(problemTitle({ rule: 'severity', title: 'RDP brute force: 30 failed logins' }, ru)).toBe('RDP brute force: 30 failed logins');
    expect(problemTitle({ rule: 'rdg_flap', title: 'something else' }, ru)).toBe('something else');
  });
});
