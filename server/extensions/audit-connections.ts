import type { Extension, connectedPayload } from '@hocuspocus/server';
import { parseDocName } from '../../shared/model/doc-layout.ts';
import type { AuditLog } from '../store/sqlite-audit.ts';
import type { AuthContext } from './auth.ts';
import { extensionPriority } from '../sync/extension-priorities.ts';

/**
 * Writes one audit entry `doc.opened` when an authenticated connection to a part of a document
 * opens (the app opens three: text, notes, runs); nothing per message.
 */
export class AuditConnections implements Extension {
  extensionName = 'TandemAuditConnections';
  priority = extensionPriority.auditConnections;

  constructor(private readonly options: { audit: AuditLog; onError: (error: unknown) => void }) {}

  async connected({ context, documentName }: connectedPayload<AuthContext>): Promise<void> {
    const target = parseDocName(documentName);
    const principal = context.principal;
    if (!target || !principal) return;
    const { sub: id, name, role } = principal;
    this.options.audit.record({ action: 'doc.opened', docId: target.docId, actor: { id, name, role } }).catch(this.options.onError);
  }
}
