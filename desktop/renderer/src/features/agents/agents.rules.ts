/** Pure helpers of the agent versions and updates screens (no API, testable alone). */
export type AgentUpdateState = 'pending' | 'started' | 'fallback' | 'success' | 'failed';

export const AGENT_UPDATE_STATES: readonly AgentUpdateState[] = ['pending', 'started', 'fallback', 'success', 'failed'];

interface JobLike {
  product: string;
  target_version: string;
  state: AgentUpdateState;
}

/** A job SAC may still push itself ("Push now"): the agent has not finished it. */
export const pushable = (state: AgentUpdateState) => state === 'pending' || state === 'started';

/** The badge class of a job state. */
export const stateBadge = (state: AgentUpdateState) => (state === 'success' ? 'ok' : state === 'failed' ? 'bad' : state === 'fallback' ? 'st-acknowledged' : 'accent');

/**
 * Progress of the updates of one product to its latest version: of the jobs that target it, how
 * many finished well, how many failed, how many are still running.
 */
export function productProgress(jobs: readonly JobLike[], product: string, latest: string | null): { total: number; done: number; failed: number; running: number } {
  const mine = jobs.filter((j) => j.product === product && latest !== null && j.target_version === latest);
  const done = mine.filter((j) => j.state === 'success').length;
  const failed = mine.filter((j) => j.state === 'failed').length;
  return { total: mine.length, done, failed, running: mine.length - done - failed };
}

/** The text of a desired agent configuration as the editor shows it. */
export const configText = (config: Record<string, unknown>) => JSON.stringify(config, null, 2);

/** Parses the editor's text: a JSON object, or the reason it is not one. */
export function parseConfig(text: string): { ok: true; config: Record<string, unknown> } | { ok: false; reason: 'json' | 'object' | 'size' } {
  let value: unknown;
  try {
    value = JSON.parse(text.trim() === '' ? '{}' : text);
  } catch {
    return { ok: false, reason: 'json' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'object' };
  if (JSON.stringify(value).length > 65_536) return { ok: false, reason: 'size' };
  return { ok: true, config: value as Record<string, unknown> };
}
