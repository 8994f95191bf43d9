import { describe, expect, it } from 'vitest';
import { hardwareChangeTitle } from '../../daemon/src/correlation/inventory.rules.js';
import { distributedBruteforceTitle, loginAfterFailuresTitle } from '../../daemon/src/correlation/logins.rules.js';
import { massSilenceTitle } from '../../daemon/src/correlation/mass-silence.rules.js';
import { formatSilence } from '../../daemon/src/correlation/hosts.rules.js';
import { createAppI18n } from '../../desktop/renderer/src/i18n/index.js';
import { problemTitle } from '../../desktop/renderer/src/features/problems/problem-title.js';

const HOSTS = Array.from({ length: 13 }, (_, i) => `WS${String(i + 1).padStart(2, '0')}`);

/** The titles the daemon builds (its own functions) and the console's Russian and English for them. */
const CASES: [rule: string, title: string, ru: string][] = [
  ['rdg_flap', 'RD Gateway flap: anna → 10.0.0.5', 'Флаппинг RD Gateway: anna → 10.0.0.5'],
  ['hardware_changed', hardwareChangeTitle('DC01', ['memory_gb', 'disks']), 'Оборудование изменилось на DC01: память, диски'],
  ['host_silence', `No heartbeat from web-01 for ${formatSilence((5 * 60 + 3) * 60_000)}`, 'Нет heartbeat от web-01 уже 5 ч 3 мин'],
  ['host_silence', `No heartbeat from web-01 for ${formatSilence(40_000)}`, 'Нет heartbeat от web-01 уже 40 с'],
  ['login_after_failures', loginAfterFailuresTitle('203.0.113.7', 'root', 'web-01', 21), 'Вход root на web-01 с 203.0.113.7 после 21 неудачной попытки'],
  ['login_after_failures', loginAfterFailuresTitle('203.0.113.7', 'root', 'web-01', 5), 'Вход root на web-01 с 203.0.113.7 после 5 неудачных попыток'],
  ['distributed_bruteforce', distributedBruteforceTitle('198.51.100.9', ['DC01', 'RDS01', 'web-01']), 'Неудачные входы с 198.51.100.9 на 3 хостах: DC01, RDS01, web-01'],
  ['mass_silence', massSilenceTitle(HOSTS, 21), `13 из 21 хоста замолчали разом: ${HOSTS.slice(0, 10).join(', ')} и ещё 3`],
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
