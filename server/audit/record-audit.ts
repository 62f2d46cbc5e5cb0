import type { Claims } from '../../shared/protocol/claims.ts';
import type { AuditAction, AuditActor, AuditLog } from '../store/sqlite-audit.ts';

export function actorOf(principal: Claims): AuditActor {
  return { id: principal.sub, name: principal.name, role: principal.role };
}

/**
 * Records that `principal` did `action` to document `docId` (and run `runId`). Called after the
 * action succeeded; a failure to write the entry is logged, never turned into a failure of the
 * action that already happened.
 */
export async function recordAudit(audit: AuditLog, principal: Claims, action: AuditAction, docId: string, runId?: string): Promise<void> {
  try {
    await audit.record({ action, docId, actor: actorOf(principal), runId });
  } catch (error) {
    console.error('[tandem] audit entry not written:', error);
  }
}
