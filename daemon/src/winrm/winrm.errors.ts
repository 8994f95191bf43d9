import { AppError } from '../errors.js';

/** Every failure the WinRM client reports; `http/error-map.ts` gives each its status. */
export type WinRmErrorCode =
  | 'winrm/unreachable'
  | 'winrm/auth_failed'
  | 'winrm/encryption_refused'
  | 'winrm/command_failed'
  | 'winrm/timeout'
  | 'winrm/not_configured'
  | 'winrm/invalid_target'
  | 'winrm/bad_ca'
  | 'winrm/bad_response';

export function winrmError(code: WinRmErrorCode, message: string, details?: Record<string, unknown>, cause?: unknown): AppError {
  return new AppError(code, message, { details, cause });
}
