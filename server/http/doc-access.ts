import type { Claims } from '../../shared/protocol/claims.ts';
import { isDocId } from '../../shared/model/doc-layout.ts';
import { coversDoc, may } from '../../shared/protocol/permissions.ts';
import type { DocRecord, Store } from '../store/store.ts';
import { forbidden, inTrash, notFound } from './api-error.ts';

/**
 * The catalogue record of a document the principal may read: throws Rejection 403 when its role
 * may not read or its token is for another document, 404 when there is no such document, 410
 * `IN_TRASH` when it is in the trash (CAT3).
 */
export async function readableDoc(store: Store, principal: Claims, id: string): Promise<DocRecord> {
  if (!may(principal.role, 'doc.read')) throw forbidden();
  if (!coversDoc(principal, id)) throw forbidden('Your token is for another document.');
  const record = isDocId(id) ? await store.getDoc(id) : null;
  if (!record) throw notFound('There is no document with this id.');
  if (record.deletedAt !== null) throw inTrash();
  return record;
}
