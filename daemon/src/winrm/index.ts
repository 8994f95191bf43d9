/**
 * WinRM client: runs commands on Windows hosts over WS-Management with NTLM (HTTPS with channel
 * binding, or HTTP with NTLM message encryption), decodes OEM console output and parses
 * `qwinsta`. Failures are `AppError`s with the `winrm/*` codes of {@link WinRmErrorCode}.
 */
export { createWinRmClient } from './client.js';
export type { SessionList, WinRmClient, WinRmClientOptions, WinRmHostTarget, WinRmResult, WinRmTarget, WinRmTestResult } from './client.js';
export { decodeOem } from './codepages.js';
export type { OemCodePage } from './codepages.js';
export { parseQwinsta } from './qwinsta.js';
export type { WinRmErrorCode } from './winrm.errors.js';
export { winRmOptionsFromSettings } from './winrm.settings.js';
