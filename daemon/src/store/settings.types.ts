/** One stored setting: a JSON text whose secret fields are already encrypted by the settings service. */
export interface StoredSetting {
  key: string;
  value: string;
  updated_ms: number;
  updated_by: string | null;
}

export interface SettingsRepo {
  get(key: string): Promise<StoredSetting | null>;
  list(): Promise<StoredSetting[]>;
  /** Creates or replaces. */
  put(setting: StoredSetting): Promise<void>;
  /** Stores `setting` only when the key is absent; returns whichever value is stored now (first writer wins). */
  insertIfAbsent(setting: StoredSetting): Promise<StoredSetting>;
}
