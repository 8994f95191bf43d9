/** Environment for notification tests. */

/** A report time that is never due during the test run (local time stays before 12:00 in the zone chosen). */
export function reportNeverDue(): Record<string, string> {
  return { SAC_REPORT_TIME: '23:59', SAC_REPORT_TIMEZONE: new Date().getUTCHours() >= 12 ? 'Etc/GMT+12' : 'UTC' };
}

/** Fast, bounded retries so outage tests take a second, not hours. */
export const FAST_DELIVERY = {
  SAC_NOTIFY_RETRY_BASE_MS: '100',
  SAC_NOTIFY_RETRY_MAX_MS: '400',
  SAC_NOTIFY_POLL_MS: '50',
  SAC_NOTIFY_MAX_ATTEMPTS: '4',
  SAC_NOTIFY_TIMEOUT_MS: '3000',
};
