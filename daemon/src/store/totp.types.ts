/** A user's TOTP second factor. */
export interface TotpRecord {
  user_id: string;
  /** Base32 secret, encrypted by the settings' SecretBox. */
  secret: string;
  /** False while enrolment waits for the first code. */
  enabled: boolean;
  /** The last time step a code was accepted for; a code of this step or earlier is refused (replay). */
  last_step: number;
  /** SHA-256 (hex) of the unused recovery codes. */
  recovery_hashes: string[];
  created_ms: number;
  enabled_ms: number | null;
}

export interface TotpRepo {
  get(userId: string): Promise<TotpRecord | null>;
  /** Starts (or restarts) an enrolment: replaces a record that is not enabled; false when one is enabled. */
  putPending(record: TotpRecord): Promise<boolean>;
  /** Enables a pending record, accepting `step` as used; false when it is not pending or `step` is not newer. */
  enable(userId: string, step: number, recoveryHashes: string[], nowMs: number): Promise<boolean>;
  /** Records `step` as used when it is newer than the last one; atomic (a replay loses). */
  useStep(userId: string, step: number): Promise<boolean>;
  /** Removes one unused recovery code; true only for the caller that removed it. */
  useRecoveryCode(userId: string, hash: string): Promise<boolean>;
  remove(userId: string): Promise<boolean>;
}
