/** Console user roles: `admin` manages everything; `monitor` reads and handles problems. */
export const ROLES = ['admin', 'monitor'] as const;
export type Role = (typeof ROLES)[number];

/** The signed-in console user as the API reports it. */
export interface SessionUser {
  id: string;
  username: string;
  role: Role;
  /** Set when the session is a mobile device's (enrolled with a code), not a console sign-in. */
  device_id?: string;
}
