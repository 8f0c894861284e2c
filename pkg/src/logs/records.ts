// What a chunked log's records are: how a caller's item becomes one, what a stored one must
// be, and what its indexes read. A generic log's records are `{ sequence, value }`; the
// subscriber archive has its own kind (reference-samples/records.ts).

/** How a chunked log reads its callers' items into records, and checks its stored records. */
export interface RecordKind<I, R extends { sequence: number }> {
  /** Names the records in messages (`subscriber page "..." not found`). */
  recordName: string;
  input(value: unknown, name: string): I;
  make(sequence: number, item: I): R;
  /** Why a stored record (whose sequence is checked by the core) is not one, or undefined. */
  problem(record: object): string | undefined;
  /** What an index's key paths read in a record (docs/indexes.md): the value it holds, as appended. */
  indexed(record: R): unknown;
}

/** A record of a generic chunked log. */
export interface LogRecord<V = unknown> {
  sequence: number;
  value: V;
}

/** Records `{sequence, value}` of a log named `recordName`: any value IndexedDB can store. */
export function valueRecords<V>(recordName: string): RecordKind<V, LogRecord<V>> {
  return {
    recordName,
    input: (value) => value as V,
    make: (sequence, value) => ({ sequence, value }),
    problem: (record) => (Object.hasOwn(record, "value") ? undefined : "the record has no value"),
    indexed: (record) => record.value,
  };
}
