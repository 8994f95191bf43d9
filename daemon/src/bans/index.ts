/**
 * Fleet SSH bans: an attacking address added to ssh-monitor's ipset sets on the Linux hosts over
 * the `ssh_admin` account, the never-ban list, repeat offenders, unban and expiry, and the
 * propagation policy for hosts' own `ssh.ip.banned` / `ssh.bruteforce.mass` reports.
 */
/** The service (ban, apply, dismiss, unban, expiry job, propagation) and its reaction to committed events. */
export { BansService, subscribeBans } from './bans.service.js';
/** The console operations. */
export { bansOperations } from './bans.operations.js';
/** The never-ban entries of the settings checked as ranges when saved. */
export { checkBansSettings } from './bans.rules.js';
