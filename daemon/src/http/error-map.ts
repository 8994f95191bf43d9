import { AppError, errorSummary, storageFault, storeUnavailable } from '../errors.js';

/** Seconds an agent or client is told to wait when SAC is overloaded or its store is down. */
export const RETRY_AFTER_SECONDS = 1;

/**
 * The one code → HTTP status table. Domain code names what went wrong (`AppError.code`); only
 * transport code decides what status that is. A `user` error whose code is missing here is a
 * 400; `operational` errors are 503 and `unexpected` ones 500 whatever their code.
 * Add a row with every new user-facing code.
 */
export const ERROR_STATUS: Readonly<Record<string, number>> = {
  'request/invalid': 400,
  'request/invalid_parameter': 400,
  'request/invalid_json': 400,
  'request/too_large': 413,
  'request/unsupported_media_type': 415,
  'request/host_not_allowed': 421,
  'route/not_found': 404,
  'route/method_not_allowed': 405,
  'auth/unauthorized': 401,
  'auth/invalid_credentials': 401,
  'auth/forbidden': 403,
  'auth/csrf_refused': 403,
  'auth/too_many_attempts': 429,
  'auth/busy': 503,
  'user/weak_password': 400,
  'user/wrong_password': 400,
  'user/not_found': 404,
  'user/last_admin': 409,
  'user/duplicate': 409,
  'apikey/not_found': 404,
  'apikey/host_mismatch': 403,
  'event/not_found': 404,
  'event/duplicate': 409,
  'event/invalid': 422,
  'event/unprocessable': 422,
  'event/search_too_broad': 400,
  'host/not_found': 404,
  'approval/required': 409,
  'approval/not_required': 409,
  'approval/not_found': 404,
  'approval/not_pending': 409,
  'approval/expired': 409,
  'approval/own_request': 403,
  'group/not_found': 404,
  'group/duplicate_name': 409,
  'group/invalid_rules': 400,
  'group/admin_unlimited': 409,
  'auth/out_of_scope': 403,
  'problem/not_found': 404,
  'problem/invalid_transition': 409,
  'problem/assignee_changed': 409,
  'problem/assignee_unknown': 422,
  'report/not_found': 404,
  'stream/too_many_per_user': 429,
  'settings/invalid': 400,
  'settings/secret_required': 400,
  'settings/invalid_time_zone': 400,
  'settings/unknown_category': 404,
  'notify/channel_not_configured': 409,
  'notify/delivery_not_found': 404,
  'notify/not_retryable': 409,
  'notify/subscription_not_found': 404,
  'actions/not_windows': 409,
  'actions/session_required': 400,
  'actions/unsupported_event': 422,
  'actions/rate_limited': 429,
  'actions/no_path': 409,
  'actions/ssh_not_configured': 409,
  'host/not_found_for_target': 404,
  'command/not_found': 404,
  'command/already_finished': 409,
  'command/invalid_request': 422,
  'winrm/unreachable': 502,
  'winrm/auth_failed': 502,
  'winrm/encryption_refused': 502,
  'winrm/command_failed': 502,
  'winrm/bad_response': 502,
  'winrm/timeout': 504,
  'winrm/not_configured': 409,
  'winrm/invalid_target': 422,
  'winrm/bad_ca': 409,
  'action/target_unverified': 409,
  'action/target_ambiguous': 409,
  'host/pin_conflict': 409,
  'git/not_configured': 404,
  'git/bad_url': 400,
  'git/auth_failed': 502,
  'git/unreachable': 502,
  'git/no_version': 422,
  'git/bad_ref': 400,
  'git/unsigned_release': 409,
  'git/no_release': 422,
  'update/not_found': 404,
  'update/bundle_not_found': 404,
  'update/disabled': 409,
  'update/product_excluded': 409,
  'update/no_latest_version': 409,
  'update/not_outdated': 409,
  'update/finished': 409,
  'update/push_unsupported': 409,
  'update/no_public_url': 409,
  'update/pinned': 409,
  'rollout/not_found': 404,
  'rollout/bad_canary': 400,
  'rollout/no_hosts': 409,
  'rollout/bad_state': 409,
  'rollout/busy': 409,
  'rollout/host_not_in_rollout': 404,
  'rollout/no_such_ring': 404,
  'rollout/nothing_to_roll_back': 409,
  'rollout/host_busy': 409,
  'rollout/no_previous_release': 409,
  'agent_pin/not_found': 404,
  // Backup and restore run as commands, not HTTP; mapped so that a scheduled backup's failure or a
  // future route answers like every other user error.
  'backup/no_database': 409,
  'backup/target_exists': 409,
  'backup/no_master_key': 409,
  'backup/invalid': 400,
  'backup/checksum_mismatch': 422,
  'backup/too_new': 409,
  'backup/data_dir_not_empty': 409,
  'backup/wrong_master_key': 422,
  'maintenance/not_found': 404,
  'maintenance/invalid': 400,
  'maintenance/already_ended': 409,
  'ssh_ban/invalid_address': 400,
  'ssh_ban/never_ban': 400,
  'ssh_ban/bad_target': 400,
  'ssh_ban/no_address': 400,
  'ssh_ban/not_found': 404,
  'ssh_ban/already_banned': 409,
  'ssh_ban/not_proposed': 409,
  'ssh_ban/not_active': 409,
  'auth/invalid_ticket': 401,
  'auth/invalid_code': 401,
  'auth/wrong_code': 400,
  'auth/totp_already_enabled': 409,
  'auth/totp_not_pending': 409,
  'mobile/invalid_code': 401,
  'mobile/code_not_found': 404,
  'mobile/device_not_found': 404,
  'mobile/user_inactive': 409,
  'mobile/not_a_device': 409,
  'notify/push_endpoint_refused': 400,
  'notify/push_endpoint_taken': 409,
  'notify/too_many_subscriptions': 409,
};

/** HTTP status of an AppError, from its kind and the table above. */
export function statusOf(err: AppError): number {
  if (err.kind === 'operational') return 503;
  if (err.kind === 'unexpected') return 500;
  return ERROR_STATUS[err.code] ?? 400;
}

export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

export function errorBody(code: string, message: string, details?: unknown): ErrorBody {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

/** How an error is answered and logged, the same for REST, tRPC, ingest and REST auth. */
export interface MappedError {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** Log level for the failure: user errors are not logged by the mapper. */
  log: 'warn' | 'error' | null;
  logFields: Record<string, unknown>;
}

/**
 * The one place an error becomes an answer. Never leaks a stack: an unknown error is a generic
 * 500; an operational one a 503 with Retry-After; a 429 carries the wait its details name.
 */
export function mapError(err: unknown): MappedError {
  // A store that cannot write (disk full or read-only, server gone) is an outage, not a bug: every
  // writer — audit, settings, sessions, outbox — answers 503 and the client retries.
  if (!(err instanceof AppError) && storageFault(err) !== null) err = storeUnavailable(err);
  if (err instanceof AppError) {
    const status = statusOf(err);
    const headers: Record<string, string> = status === 503 ? { 'Retry-After': String(RETRY_AFTER_SECONDS) } : {};
    const retryAfter = (err.details as { retry_after_s?: unknown } | undefined)?.retry_after_s;
    if ((status === 429 || status === 503) && typeof retryAfter === 'number') headers['Retry-After'] = String(retryAfter);
    const log = err.kind === 'operational' ? 'warn' : err.kind === 'unexpected' ? 'error' : null;
    // AppError messages are written by SAC for people; they carry no stack or payload.
    return { status, body: errorBody(err.code, err.message, err.details), headers, log, logFields: { code: err.code, err: errorSummary(err.cause ?? err) } };
  }
  return { status: 500, body: errorBody('internal/unexpected', 'Internal error'), headers: {}, log: 'error', logFields: { err: errorSummary(err) } };
}
