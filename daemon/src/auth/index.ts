/** Console sign-in: sessions (JWT), password hashing and rules, throttling, the Authenticator. */
export { AuthService, type AuthPolicy } from './auth.service.js';
export type { Authenticator, TokenSession } from './authenticator.js';
export { passwordProblem } from './auth.rules.js';
export { generatePassword, hashPassword, verifyPassword } from './passwords.js';
export { SessionTokens, loadJwtSecret } from './tokens.js';
