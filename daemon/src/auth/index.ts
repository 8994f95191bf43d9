/** Console sign-in: sessions (JWT), password hashing and rules, throttling, the Authenticator. */
export { AuthService, type AuthPolicy } from './auth.service.js';
export type { Authenticator } from './authenticator.js';
export { passwordProblem } from './auth.rules.js';
export { generatePassword, hashPassword, verifyPassword } from './passwords.js';
export { SessionTokens, loadJwtSecret } from './tokens.js';
export { TotpService } from './totp.service.js';
export { createTotpRoutes } from './totp.routes.js';
export { totpRouter } from './totp.router.js';
