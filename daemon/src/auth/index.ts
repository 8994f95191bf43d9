/** Console sign-in: sessions (JWT), password hashing and rules, throttling, the Authenticator. */
export { AuthService, type AuthPolicy, type DeviceGate, type OwnPasswordChange } from './auth.service.js';
export { AddressFailures, passwordProblem, retryAfterSeconds } from './auth.rules.js';
export { generatePassword, hashPassword, verifyPassword } from './passwords.js';
export { TotpService } from './totp.service.js';
export { totpOperations } from './totp.operations.js';
export { SessionTokens, loadJwtSecret, type DeviceClaim } from './tokens.js';
export { authOperations } from './auth.operations.js';
