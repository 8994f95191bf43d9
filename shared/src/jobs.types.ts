/**
 * What a periodic job's runs on one daemon came to, as `/health` lists them (`jobs`): a job that
 * fails on every tick shows there and on the console screen it belongs to.
 */
export interface JobState {
  /** The job's name, e.g. `daily_report`, `escalation`. */
  job: string;
  /** ISO time of the last run that ended without error, null before one. */
  last_success_at: string | null;
  /**
   * The last failed run, null before one; its error's message (bounded) only for a signed-in
   * console user — `/health` is public and an error can name internals.
   */
  last_failure: { at: string; message?: string } | null;
  /** Failed runs since the last success; 0 = the job is healthy. */
  consecutive_failures: number;
  /** When the current series of failures began, null when the job is healthy. */
  failing_since: string | null;
}
