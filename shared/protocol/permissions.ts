import type { Claims, Role } from './claims.ts';
import type { DocPart } from '../model/doc-layout.ts';

/**
 * Who may do what: the one table of actions × roles (README, "Security model"), consulted by
 * the server's routes and services, the Hocuspocus auth extension, the notes rules and the
 * client (which only hides what a role cannot do; the server decides). Writes to `<id>/runs`
 * appear nowhere: only the server writes the runs mirror.
 */

export const permissions = {
  /** Create documents (also needs a token for no single document: `mayCreateDocs`). */
  'doc.create': ['editor'],
  /** Move a document to the trash and take it out again (CAT3). */
  'doc.trash': ['editor'],
  /** Read a document's text, notes and runs, over the API and Yjs. */
  'doc.read': ['editor', 'commenter', 'viewer', 'agent'],
  /** Write the text over Yjs. */
  'text.write': ['editor'],
  /** Write `<id>/notes`: create comments, reply, change or delete one's own comments (NOTES1, NOTES8). */
  'notes.comment': ['editor', 'commenter'],
  /** Create instructions, edit their work order and state, turn a comment into one (NOTES7). */
  'notes.instruct': ['editor'],
  /** Resolve and reopen annotations (NOTES8). */
  'notes.resolve': ['editor'],
  /** Re-pin, edit and delete anyone's annotations, malformed ones included (NOTES8). */
  'notes.moderate': ['editor'],
  /** Send a document's ready instructions to the agent. */
  'run.send': ['editor'],
  /** Accept or discard a run in review; revert an accepted run, undo a discard (REV8, REV9). */
  'run.decide': ['editor'],
  /** Ask the agent holding a run a side question, or steer the run (ASIDE1). */
  'run.aside': ['editor', 'commenter'],
  /** List queued runs, claim one, keep its lease, send ops, complete or fail it. */
  'run.work': ['agent'],
  /** Read a document's audit log. */
  'audit.read': ['editor'],
  /** Make, list and revoke a document's invites; list its people and remove them (INV1–INV6). */
  'doc.share': ['editor'],
} as const satisfies Record<string, readonly Role[]>;

export type Action = keyof typeof permissions;

export const actions = Object.keys(permissions) as Action[];

export function may(role: Role, action: Action): boolean {
  return (permissions[action] as readonly Role[]).includes(role);
}

/**
 * Whether a principal's token covers document `docId`: a token made with `--doc` covers that
 * one document only, any other token every document. Every check of an action on a document
 * pairs this with `may`.
 */
export function coversDoc(principal: Pick<Claims, 'doc'>, docId: string): boolean {
  return principal.doc === undefined || principal.doc === docId;
}

/** Creating a document is outside every document: a token for one document may not. */
export function mayCreateDocs(principal: Pick<Claims, 'role' | 'doc'>): boolean {
  return may(principal.role, 'doc.create') && principal.doc === undefined;
}

const writeActionOfPart: Record<DocPart, Action | null> = {
  text: 'text.write',
  notes: 'notes.comment',
  runs: null,
};

/** Whether a Yjs connection of `role` to `part` may change it; otherwise it is read-only. */
export function mayWritePart(role: Role, part: DocPart): boolean {
  const action = writeActionOfPart[part];
  return action !== null && may(role, action);
}
