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
  await recordAuditAs(audit, actorOf(principal), action, docId, runId);
}

/** As recordAudit, for an actor that is not the request's principal (the agent whose lease ran out). */
export async function recordAuditAs(audit: AuditLog, actor: AuditActor, action: AuditAction, docId: string, runId?: string): Promise<void> {
  try {
    await audit.record({ action, docId, actor, runId });
  } catch (error) {
    console.error('[tandem] audit entry not written:', error);
  }
}

export const readCoalesceMs = 60 * 60 * 1000;

/** The hours in which each audit log was told of a read by token and document, so that most reads cost no query. */
const noted = new WeakMap<AuditLog, Map<string, number>>();

/**
 * AUDIT3: records that `principal` read document `docId` over the API (the document, its
 * Markdown, a run, a preview), at most once per token, document and clock hour (UTC): the first
 * read of each hour writes `doc.read` with the token's id; the others write nothing. The log
 * itself decides (`recordUnlessSince`), so restarts and other instances add no second entry
 * (but two instances at the same instant may). Never fails the read.
 */
export async function recordRead(audit: AuditLog, principal: Claims, docId: string, now = Date.now()): Promise<void> {
  const hour = Math.floor(now / readCoalesceMs) * readCoalesceMs;
  const tokenId = principal.jti ?? principal.sub;
  const key = `${tokenId}\n${principal.sub}\n${docId}`;
  let hours = noted.get(audit);
  if (!hours) noted.set(audit, (hours = new Map()));
  if (hours.get(key) === hour) return;
  // Forget the hours gone by, so the map holds at most this hour's readers.
  if (hours.size > 10_000) for (const [each, at] of hours) if (at < hour) hours.delete(each);
  try {
    await audit.recordUnlessSince({ action: 'doc.read', docId, actor: actorOf(principal), tokenId, at: now }, hour);
    hours.set(key, hour);
  } catch (error) {
    console.error('[tandem] audit entry not written:', error);
  }
}
