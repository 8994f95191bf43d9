import type { Db } from 'mongodb';
import type { CatalogueField, SuggestValuesRepo } from '../suggest-values.types.js';
import { escapeRegex } from './query.mongo.js';

interface ValueDoc {
  field: CatalogueField;
  value: string;
  folded: string;
}

const IP_FIELDS = ['event.details.ip_address', 'event.details.source_ip', 'event.details.external_ip'];


export const SUGGEST_VALUES_MONGO_MIGRATION = {
  id: 76,
  name: 'value catalogue of users, addresses and types for suggestions',
  async up(db: Db) {
    const values = db.collection<ValueDoc>('suggest_values');
    await values.createIndexes([
      { key: { field: 1, value: 1 }, name: 'field_value_unique', unique: true },
      { key: { field: 1, folded: 1 }, name: 'by_folded' },
    ]);
    // Filled from the events already stored; upserts, so a rerun after a crash adds nothing twice.
    const events = db.collection('events');
    const seen: { field: CatalogueField; value: unknown }[] = [
      ...(await events.distinct('actor_user')).map((value: unknown) => ({ field: 'user' as const, value })),
      ...(await events.distinct('type')).map((value: unknown) => ({ field: 'type' as const, value })),
    ];
    for (const path of IP_FIELDS) seen.push(...(await events.distinct(path)).map((value: unknown) => ({ field: 'ip' as const, value })));
    const docs = seen.filter((s): s is ValueDoc => typeof s.value === 'string' && s.value.length <= (s.field === 'ip' ? 64 : 256));
    for (let i = 0; i < docs.length; i += 500) {
      await values.bulkWrite(
        docs.slice(i, i + 500).map((d) => ({
          updateOne: { filter: { field: d.field, value: d.value }, update: { $setOnInsert: { field: d.field, value: d.value, folded: d.value.toLowerCase() } }, upsert: true },
        })),
        { ordered: false },
      );
    }
  },
};

export function mongoSuggestValues(db: Db): SuggestValuesRepo {
  const values = db.collection<ValueDoc>('suggest_values');
  const find = (field: CatalogueField, pattern: string, limit: number) =>
    values
      .find({ field, ...(pattern ? { folded: { $regex: pattern } } : {}) }, { projection: { _id: 0, value: 1 } })
      .sort({ folded: 1, value: 1 })
      .limit(limit)
      .toArray();
  return {
    async record(batch) {
      if (batch.length === 0) return;
      try {
        await values.bulkWrite(
          batch.map((v) => ({
            updateOne: { filter: { field: v.field, value: v.value }, update: { $setOnInsert: { ...v, folded: v.value.toLowerCase() } }, upsert: true },
          })),
          { ordered: false },
        );
      } catch (err) {
        // Two daemons upserting the same new value: one insert wins, the other meets the unique index.
        if ((err as { code?: number }).code !== 11000) throw err;
      }
    },
    async match(field, text, limit) {
      const escaped = escapeRegex(text);
      const starting = await find(field, escaped ? `^${escaped}` : '', limit);
      if (starting.length === limit || !escaped) return starting.map((d) => d.value);
      const known = new Set(starting.map((d) => d.value));
      const containing = (await find(field, escaped, limit + starting.length)).filter((d) => !known.has(d.value));
      return [...starting, ...containing].slice(0, limit).map((d) => d.value);
    },
  };
}
