/** Console user roles: `admin` manages everything; `monitor` reads and handles problems. */
export const ROLES = ['admin', 'monitor'] as const;
export type Role = (typeof ROLES)[number];

/** The signed-in console user as the API reports it. */
export interface SessionUser {
  id: string;
  username: string;
  role: Role;
}
