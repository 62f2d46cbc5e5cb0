import type * as Y from 'yjs';

/** A value of a records map that is no valid record, and why. */
export interface InvalidRecord {
  id: string;
  reason: string;
}

/**
 * The records of a Y.Map that keeps each record under its id: every value that `parse` accepts
 * (the record is the result's `field`) and whose `idKey` is its key, and every other value with
 * why, in the map's order.
 */
export function readKeyedRecords<F extends string, T extends object>(
  map: Y.Map<unknown>,
  parse: (value: unknown) => { ok: false; reason: string } | ({ ok: true } & { [key in F]: T }),
  field: F,
  idKey: keyof T & string,
): { records: T[]; invalid: InvalidRecord[] } {
  const records: T[] = [];
  const invalid: InvalidRecord[] = [];
  map.forEach((value, key) => {
    const result = parse(value);
    if (!result.ok) invalid.push({ id: key, reason: result.reason });
    else if (result[field][idKey] !== key) invalid.push({ id: key, reason: `${idKey} does not match its key` });
    else records.push(result[field]);
  });
  return { records, invalid };
}
