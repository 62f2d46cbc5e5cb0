/**
 * The row a statement has just written, or read back right after writing it in the same
 * transaction: its absence is a broken invariant of the store, never a missing record, so it
 * throws instead of answering "not found".
 */
export function writtenRow<T>(row: T | null | undefined, what: string): T {
  if (row === null || row === undefined) throw new Error(`The store lost ${what} it had just written.`);
  return row;
}
