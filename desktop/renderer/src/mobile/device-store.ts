/**
 * What an enrolled phone keeps between launches, in IndexedDB (readable by the page only, kept
 * when the tab closes): its device_uuid and the current refresh token. The access token stays in
 * memory.
 */
const DB_NAME = 'sac-mobile';
const STORE = 'kv';

export interface DeviceKeys {
  device_uuid: string | null;
  refresh_token: string | null;
}

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB unavailable'));
  });
}

async function run<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest<T> | void): Promise<T | undefined> {
  const db = await open();
  try {
    return await new Promise<T | undefined>((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const req = work(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(req ? req.result : undefined);
      tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
    });
  } finally {
    db.close();
  }
}

export const deviceStore = {
  async get<K extends keyof DeviceKeys>(key: K): Promise<DeviceKeys[K]> {
    return ((await run<string>('readonly', (s) => s.get(key))) ?? null) as DeviceKeys[K];
  },
  async set<K extends keyof DeviceKeys>(key: K, value: DeviceKeys[K]): Promise<void> {
    await run('readwrite', (s) => {
      if (value === null) s.delete(key);
      else s.put(value, key);
    });
  },
  /** The device_uuid, created on first use: re-enrolling this phone reuses its record. */
  async deviceUuid(): Promise<string> {
    const known = await this.get('device_uuid');
    if (known) return known;
    const fresh = crypto.randomUUID();
    await this.set('device_uuid', fresh);
    return fresh;
  },
};
