import type { Role } from '../../shared/claims.ts';
import type { DocPart } from '../../shared/doc-layout.ts';

/**
 * What each role may do: the one table every check on the server consults (DESIGN.md, Roles).
 * Writes to `<id>/runs` appear nowhere: only the server writes the runs mirror.
 */

export type Action =
  | 'docs.create'
  | 'docs.read'
  | 'text.write'
  | 'notes.write'
  | 'comments.create'
  | 'instructions.create'
  | 'runs.send'
  | 'runs.review'
  | 'runs.work'
  | 'audit.read';

const permissions: Record<Role, ReadonlySet<Action>> = {
  editor: new Set<Action>([
    'docs.create',
    'docs.read',
    'text.write',
    'notes.write',
    'comments.create',
    'instructions.create',
    'runs.send',
    'runs.review',
    'audit.read',
  ]),
  commenter: new Set<Action>(['docs.read', 'notes.write', 'comments.create']),
  viewer: new Set<Action>(['docs.read']),
  agent: new Set<Action>(['docs.read', 'runs.work']),
};

export function may(role: Role, action: Action): boolean {
  return permissions[role].has(action);
}

const writeActionOfPart: Record<DocPart, Action | null> = {
  text: 'text.write',
  notes: 'notes.write',
  runs: null,
};

/** Whether a Yjs connection of `role` to `part` may change it; otherwise it is read-only. */
export function mayWritePart(role: Role, part: DocPart): boolean {
  const action = writeActionOfPart[part];
  return action !== null && may(role, action);
}
