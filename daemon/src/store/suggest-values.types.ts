/** What the value catalogue keeps values of: the fields events carry (hosts and rules are read from their own lists). */
export type CatalogueField = 'user' | 'ip' | 'type';

/** One value seen in an event. */
export interface CatalogueValue {
  field: CatalogueField;
  value: string;
}

/**
 * The distinct values events carried, per field, so the console's suggestions never scan events:
 * written by ingest in the batch's commit (a value already known is skipped), read by `suggest.values`.
 */
export interface SuggestValuesRepo {
  record(values: CatalogueValue[]): Promise<void>;
  /**
   * Up to `limit` values of `field` whose lower-cased form contains `text` (lower-cased by the
   * caller; empty: any): those starting with it first, each group in order of the lower-cased value.
   */
  match(field: CatalogueField, text: string, limit: number): Promise<string[]>;
}
