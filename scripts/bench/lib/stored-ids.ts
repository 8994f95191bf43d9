import path from 'node:path';
import Database from 'better-sqlite3';
import { MongoClient } from 'mongodb';

export type StoreTarget = { kind: 'sqlite'; dataDir: string } | { kind: 'mongodb'; uri: string; dbName: string };

/**
 * How often each of `ids` is stored, read straight from the store (the daemon may be stopped or
 * killed): `missing` ids never stored, `repeated` stored more than once, and the table's total.
 */
export async function checkStored(target: StoreTarget, ids: readonly string[]): Promise<{ missing: number; repeated: number; total: number }> {
  const counts = new Map<string, number>();
  let total: number;
  if (target.kind === 'sqlite') {
    const db = new Database(path.join(target.dataDir, 'sac.sqlite'), { readonly: true, fileMustExist: true });
    try {
      const stmt = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM events WHERE event_id = ?');
      for (const id of ids) counts.set(id, stmt.get(id)!.n);
      total = (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
    } finally {
      db.close();
    }
  } else {
    const client = new MongoClient(target.uri);
    try {
      const events = client.db(target.dbName).collection<{ event_id: string }>('events');
      for (let i = 0; i < ids.length; i += 1000) {
        const chunk = ids.slice(i, i + 1000);
        for (const id of chunk) counts.set(id, 0);
        for await (const doc of events.find({ event_id: { $in: chunk } }, { projection: { event_id: 1 } })) {
          counts.set(doc.event_id, (counts.get(doc.event_id) ?? 0) + 1);
        }
      }
      total = await events.countDocuments();
    } finally {
      await client.close();
    }
  }
  let missing = 0;
  let repeated = 0;
  for (const n of counts.values()) {
    if (n === 0) missing++;
    else if (n > 1) repeated++;
  }
  return { missing, repeated, total };
}
