import { mostSpecific, typeMatches, type TypeProblemChoice } from '../../../shared/src/index.js';
import { loginUser } from './logins.rules.js';

/** Types that are routine administration when an administrator does them: by a known admin user they open no problem. */
const ADMIN_WORK_PATTERNS = ['privilege', 'winrm.session', 'smb.admin_share', 'rdp.shadow'];

/** A user name as compared with the known admin users: case folded, without `DOMAIN\` or `@domain`. */
export function adminUserKey(user: string): string {
  return loginUser({ user });
}

/**
 * What an event that opens a problem by severity (`opensProblem`) does: the choice of the most
 * specific matching pattern (none: `open`). Routine administration (sudo, WinRM, admin shares,
 * shadowing) by a known admin user opens nothing, whatever the choice.
 */
export function typeProblemChoice(
  type: string,
  actorUser: string | null,
  choices: Readonly<Record<string, TypeProblemChoice>>,
  adminUsers: ReadonlySet<string>,
): TypeProblemChoice {
  if (actorUser !== null && adminUsers.has(adminUserKey(actorUser)) && ADMIN_WORK_PATTERNS.some((p) => typeMatches(type, p))) return 'never';
  return mostSpecific(type, choices) ?? 'open';
}

/** The type of a host's activity problem (rule `host_activity`), into which events of types chosen `count` go. */
export const HOST_ACTIVITY_TYPE = 'host.activity';
/** Counted events this close (occurred time) join the host's open activity problem: steady noise makes one a day at most. */
export const HOST_ACTIVITY_WINDOW_MS = 24 * 60 * 60_000;

export function hostActivityTitle(hostname: string): string {
  return `Counted activity on ${hostname}`;
}
