/** The kinds of op an agent may send to the applier; an agent token may allow a subset. */
export const opKinds = ['replace_block', 'insert_after', 'delete_block', 'propose_variants'] as const;
export type OpKind = (typeof opKinds)[number];

export function isOpKind(value: unknown): value is OpKind {
  return typeof value === 'string' && (opKinds as readonly string[]).includes(value);
}
