import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import en from '../../i18n/en';
import ru from '../../i18n/ru';

/** Every `.ts` file under the daemon's sources, tests left out. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [full] : [];
  });
}

/**
 * The audit action codes the daemon records: literals given as `action:` or to the helpers that
 * record one (`audited`, `record`, `changed`, `revokeRecord`), the problem actions' map, and the
 * agent update states (recorded as `agent_update.<state>`).
 */
function auditActions(): Set<string> {
  const root = path.resolve(__dirname, '../../../../../daemon/src');
  const found = new Set<string>();
  for (const file of sources(root)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/action: '([a-z_]+\.[a-z_.]+)'/g)) found.add(m[1]);
    for (const m of text.matchAll(/(?:audited|record|changed|revokeRecord)\([^'\n]*'([a-z_]+\.[a-z_]+)'/g)) found.add(m[1]);
    for (const m of text.matchAll(/(?:acknowledge|resolve|reopen): '(problem\.[a-z_]+)'/g)) found.add(m[1]);
    for (const m of text.matchAll(/\? '([a-z_]+\.[a-z_]+)' : '([a-z_]+\.[a-z_]+)'/g)) if (/action/.test(text.slice(Math.max(0, m.index - 40), m.index))) m.slice(1).forEach((a) => found.add(a));
  }
  const states = readFileSync(path.join(root, 'store/agent-updates.types.ts'), 'utf8').match(/AGENT_UPDATE_STATES = \[([^\]]+)\]/)![1];
  for (const s of states.matchAll(/'([a-z_]+)'/g)) found.add(`agent_update.${s[1]}`);
  return found;
}

describe('audit log labels', () => {
  it('names every action the daemon records, in English and Russian', () => {
    const actions = auditActions();
    // The scan itself must find the well-known codes, or it proves nothing.
    for (const known of ['auth.login_succeeded', 'user.password_reset', 'problem.acknowledged', 'command.queued', 'agent_update.success', 'mobile.refresh_token_reused']) {
      expect(actions, known).toContain(known);
    }
    for (const [lang, messages] of [['en', en], ['ru', ru]] as const) {
      const labels = messages.operator.auditActions as Record<string, string>;
      const missing = [...actions].filter((a) => !labels[a.replace(/\./g, '_')]);
      expect(missing, lang).toEqual([]);
    }
  });

  it('has the same target kinds and outcomes in both languages', () => {
    expect(Object.keys(ru.operator.targetKinds).sort()).toEqual(Object.keys(en.operator.targetKinds).sort());
    expect(Object.keys(ru.operator.auditActions).sort()).toEqual(Object.keys(en.operator.auditActions).sort());
    expect(Object.keys(ru.operator.outcomes).sort()).toEqual(Object.keys(en.operator.outcomes).sort());
  });
});
