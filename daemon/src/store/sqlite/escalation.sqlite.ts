import type Database from 'better-sqlite3';
import type { EscalationRepo } from '../escalation.types.js';

export function sqliteEscalation(db: Database.Database): EscalationRepo {
  const claim = db.prepare('INSERT INTO escalation_steps (problem_id, step, at_ms) VALUES (?, ?, ?) ON CONFLICT DO NOTHING');
  return {
    async claimStep(problemId, step, atMs) {
      return claim.run(problemId, step, atMs).changes > 0;
    },
    async lastSteps(problemIds) {
      const out = new Map<string, number>();
      if (problemIds.length === 0) return out;
      const rows = db
        .prepare(`SELECT problem_id, MAX(step) AS step FROM escalation_steps WHERE problem_id IN (SELECT value FROM json_each(?)) GROUP BY problem_id`)
        .all(JSON.stringify(problemIds)) as { problem_id: string; step: number }[];
      for (const r of rows) out.set(r.problem_id, r.step);
      return out;
    },
  };
}
