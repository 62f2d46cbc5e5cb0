import { isOpKind, opKinds, type OpKind } from '../applier/op-kinds.ts';
import { isPageOpKind, pageOpKinds, type PageOpKind } from '../page/page-ops.ts';

/**
 * Every op kind an agent token may allow (`tandem token --ops`, the `ops` claim): the block ops
 * of text documents and the page ops of web pages. A token without `ops` allows them all.
 */
export const grantableOps: readonly GrantableOp[] = [...opKinds, ...pageOpKinds];
export type GrantableOp = OpKind | PageOpKind;

export function isGrantableOp(value: unknown): value is GrantableOp {
  return isOpKind(value) || isPageOpKind(value);
}
