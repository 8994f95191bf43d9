/** An enrollment code an admin issued for a user; only its SHA-256 is stored. */
export interface EnrollmentCodeRecord {
  id: string;
  /** SHA-256 of the normalised code, hex. */
  code_hash: string;
  /** The user the enrolled device acts as. */
  user_id: string;
  created_by: string | null;
  created_ms: number;
  expires_ms: number;
  used_ms: number | null;
  /** The device that used it. */
  used_by: string | null;
  revoked_ms: number | null;
}

export type DeviceStatus = 'enrolled' | 'revoked';

/** A mobile device (the PWA on a phone), identified by the `device_uuid` it generated. */
export interface DeviceRecord {
  id: string;
  device_uuid: string;
  user_id: string;
  name: string;
  platform: string;
  app_version: string | null;
  status: DeviceStatus;
  /**
   * Incremented by every enrollment of this device: access and refresh tokens carry it, so a
   * re-enrollment kills every token issued before it.
   */
  generation: number;
  push_subscription_id: string | null;
  enrolled_ms: number;
  last_seen_ms: number;
  revoked_ms: number | null;
}

/** One refresh token; only its SHA-256 is stored. Kept after use until it expires, to detect reuse. */
export interface RefreshTokenRecord {
  hash: string;
  device_id: string;
  /** The device generation it was issued for. */
  generation: number;
  created_ms: number;
  expires_ms: number;
  used_ms: number | null;
}

export interface EnrollInput {
  /** Id for a new record; a known `device_uuid` keeps its own. */
  id: string;
  device_uuid: string;
  user_id: string;
  name: string;
  platform: string;
  app_version: string | null;
  push_subscription_id: string | null;
  now_ms: number;
}

export type RefreshTokenUse =
  | { status: 'ok'; token: RefreshTokenRecord }
  | { status: 'reused'; token: RefreshTokenRecord }
  | { status: 'unknown' };

export interface DevicesRepo {
  insertCode(code: EnrollmentCodeRecord): Promise<void>;
  /** Newest first. */
  listCodes(): Promise<EnrollmentCodeRecord[]>;
  /** Revokes an unused code; false when there is no such code or it was already used or revoked. */
  revokeCode(id: string, atMs: number): Promise<boolean>;
  /**
   * Uses the code with this hash: its record for exactly one caller, and only while it is
   * unexpired, unused and not revoked; null for everyone else (also under concurrent use).
   */
  consumeCode(codeHash: string, nowMs: number): Promise<EnrollmentCodeRecord | null>;
  /** Records which device used a code (after `consumeCode`). */
  markCodeUsedBy(id: string, deviceId: string): Promise<void>;

  /**
   * Enrolls `device_uuid`: a new record, or the existing one (same id) set to enrolled for the
   * given user with its generation incremented and all its refresh tokens deleted. Never two
   * records for one `device_uuid`, also under concurrent enrollments.
   */
  enroll(input: EnrollInput): Promise<{ device: DeviceRecord; created: boolean; previous: DeviceRecord | null }>;
  byId(id: string): Promise<DeviceRecord | null>;
  /** Every device, or one user's; most recently seen first. */
  list(filter?: { user_id?: string }): Promise<DeviceRecord[]>;
  /** Records use (refresh) of an enrolled device. */
  touch(id: string, atMs: number, appVersion?: string | null): Promise<void>;
  /** Sets the push subscription of an enrolled device; the record after, or null when it is not enrolled. */
  setPush(id: string, pushSubscriptionId: string | null): Promise<DeviceRecord | null>;
  /** Sets an enrolled device to revoked and deletes its refresh tokens; the record before, or null when unknown. */
  revoke(id: string, atMs: number): Promise<DeviceRecord | null>;
  /** Removes the device and its refresh tokens completely; the removed record, or null. */
  delete(id: string): Promise<DeviceRecord | null>;

  insertRefreshToken(token: RefreshTokenRecord): Promise<void>;
  /**
   * Marks the token used: `ok` for exactly one caller, `reused` for every later presentation of
   * a used token (theft detection), `unknown` for a token never issued or already deleted.
   */
  useRefreshToken(hash: string, nowMs: number): Promise<RefreshTokenUse>;
  /** Deletes refresh tokens expired at `nowMs` and codes that expired before `codesBeforeMs`; returns how many rows. */
  prune(nowMs: number, codesBeforeMs: number): Promise<number>;
}
