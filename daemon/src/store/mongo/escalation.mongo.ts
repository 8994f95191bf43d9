import { MongoServerError, type Db } from 'mongodb';
import type { EscalationRepo } from '../escalation.types.js';

const DUPLICATE_KEY = 11000;

export function mongoEscalation(db: Db): EscalationRepo {
  // The unique `_id` insert is the one write FerretDB makes atomic: exactly one caller records a step.
  const steps = db.collection<{ _id: string; problem_id: string; step: number; at_ms: number }>('escalation_steps');
  return {
    async claimStep(problemId, step, atMs) {
      try {
        await steps.insertOne({ _id: `${problemId}:${step}`, problem_id: problemId, step, at_ms: atMs });
        return true;
      } catch (err) {
        if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false;
        throw err;
      }
    },
    async lastSteps(problemIds) {
      const out = new Map<string, number>();
      if (problemIds.length === 0) return out;
      for (const d of await steps.find({ problem_id: { $in: problemIds } }, { projection: { problem_id: 1, step: 1 } }).toArray()) {
        out.set(d.problem_id, Math.max(out.get(d.problem_id) ?? 0, d.step));
      }
      return out;
    },
  };
}
