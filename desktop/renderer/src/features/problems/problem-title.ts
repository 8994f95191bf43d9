type Translate = (key: string, named?: Record<string, unknown>, plural?: number) => string;

/** Hardware part names as the daemon writes them in a `hardware_changed` title. */
const HARDWARE_PARTS: Record<string, string> = { processors: 'processor', motherboard: 'motherboard', memory: 'memory', disks: 'disks', video: 'video' };

/** A silence duration as the daemon writes it ("5 h 3 min", "12 min", "40 s") in the console language. */
function duration(text: string, t: Translate): string {
  return text.replace(/(\d+) (h|min|s)\b/g, (_, n: string, unit: string) => t(`problemTitles.units.${unit}`, { n }));
}

/** A list of host names ending "and 3 more", in the console language. */
function names(text: string, t: Translate): string {
  return text.replace(/ and (\d+) more$/, (_, n: string) => ` ${t('problemTitles.more', { n })}`);
}

/**
 * How the daemon writes the titles of the problems SAC raises itself, by rule; each match gives
 * the named values of `problemTitles.<rule>`. (The daemon's title functions are in
 * `daemon/src/correlation/*.rules.ts` and `daemon/src/hosts/liveness.ts`; problem-title.test.ts holds their output.)
 * The plural form follows `count`; vue-i18n would take a named `n` or `count` over it, so a count
 * that is not the plural's has another name (`silent`).
 */
const TITLES: Record<string, { pattern: RegExp; values: (m: RegExpExecArray, t: Translate) => Record<string, unknown>; count?: (m: RegExpExecArray) => number }> = {
  rdg_flap: { pattern: /^RD Gateway flap: (.*) → (.*)$/, values: (m) => ({ user: m[1], target: m[2] }) },
  hardware_changed: {
    pattern: /^Hardware changed on (.+): ((?:processors|motherboard|memory|disks|video)(?:, (?:processors|motherboard|memory|disks|video))*)$/,
    values: (m, t) => ({ host: m[1], parts: m[2].split(', ').map((p) => t(`problemTitles.parts.${HARDWARE_PARTS[p]}`)).join(', ') }),
  },
  host_silence: { pattern: /^No heartbeat from (.+) for (\d+ (?:h|min|s)(?: \d+ min)?)$/, values: (m, t) => ({ host: m[1], duration: duration(m[2], t) }) },
  login_after_failures: {
    pattern: /^Login of (.+) on (.+) from (\S+) after (\d+) failed logins$/,
    values: (m) => ({ user: m[1], host: m[2], address: m[3], n: Number(m[4]) }),
    count: (m) => Number(m[4]),
  },
  distributed_bruteforce: {
    pattern: /^Failed logins from (\S+) on (\d+) hosts: (.+)$/,
    values: (m, t) => ({ address: m[1], n: Number(m[2]), hosts: names(m[3], t) }),
    count: (m) => Number(m[2]),
  },
  mass_silence: {
    pattern: /^(\d+) of (\d+) hosts went silent together: (.+)$/,
    values: (m, t) => ({ silent: Number(m[1]), total: Number(m[2]), hosts: names(m[3], t) }),
    count: (m) => Number(m[2]),
  },
};

/**
 * A problem's title in the console language. Titles SAC builds itself (the rules above) are
 * rebuilt from their values; a problem an agent's event titled keeps the agent's text, and a title
 * that does not read as its rule's (an older wording) is shown as stored.
 */
export function problemTitle(p: { rule: string; title: string }, t: Translate): string {
  const rule = TITLES[p.rule];
  const m = rule?.pattern.exec(p.title);
  if (!rule || !m) return p.title;
  const values = rule.values(m, t);
  return rule.count ? t(`problemTitles.${p.rule}`, values, rule.count(m)) : t(`problemTitles.${p.rule}`, values);
}
