import { ContextConsumer, createContext } from '@lit/context';
import type { ReactiveElement } from 'lit';
import { annotationRights, canEditText, canWriteNotes, noAnnotationRights, type AnnotationRights, type Session } from './session.ts';
import { may, mayCreateDocs } from '../shared/protocol/permissions.ts';

/** The things the page asks whether this person may do. */
export type SessionAction =
  | 'edit-text'
  | 'write-notes'
  | 'comment'
  | 'instruct'
  | 'reply'
  | 'resolve'
  | 'manage-instructions'
  | 'send-run'
  | 'decide-run'
  | 'aside'
  | 'create-doc'
  | 'trash-doc'
  | 'share-doc';

/**
 * The signed-in session as the page sees it: the token the API and the collab socket take,
 * the claims, the name and colour for presence, and `may`, the one question the page asks
 * about rights. Provided by `<tandem-app>`; null while no unexpired session is known.
 */
export interface SessionInfo {
  readonly session: Session;
  readonly token: string;
  may(action: SessionAction): boolean;
}

export const sessionContext = createContext<SessionInfo | null>(Symbol('tandem-session'));

/**
 * What the principal of `session` may do in the page. The only place the page turns a role into
 * rights; the server checks every one of them again.
 */
export function sessionInfo(session: Session): SessionInfo {
  const { role } = session.claims;
  const notes = annotationRights(role);
  const rights: Record<SessionAction, boolean> = {
    'edit-text': canEditText(role),
    'write-notes': canWriteNotes(role),
    comment: notes.comment,
    instruct: notes.instruct,
    reply: notes.reply,
    resolve: notes.resolve,
    'manage-instructions': notes.manageInstructions,
    'send-run': may(role, 'run.send'),
    'decide-run': may(role, 'run.decide'),
    aside: may(role, 'run.aside'),
    'create-doc': mayCreateDocs(session.claims),
    'trash-doc': may(role, 'doc.trash'),
    'share-doc': may(role, 'doc.share'),
  };
  return { session, token: session.token, may: (action) => rights[action] };
}

/** What `info` allows with annotations, in the shape the annotation cards take. */
export function annotationRightsOf(info: SessionInfo): AnnotationRights {
  return {
    comment: info.may('comment'),
    instruct: info.may('instruct'),
    reply: info.may('reply'),
    resolve: info.may('resolve'),
    manageInstructions: info.may('manage-instructions'),
  };
}

/**
 * What this person may do with the annotations of the document on the page: `annotationRightsOf`
 * the session, or none while the server keeps the notes read-only. Provided by
 * `<tandem-doc-view>`; consumed by the editor, the margin and each card.
 */
export const annotationRightsContext = createContext<AnnotationRights>(Symbol('tandem-annotation-rights'));

/**
 * Subscribes `host` to the annotation rights of `annotationRightsContext`; the returned function
 * reads them now (none until `<tandem-doc-view>` provides them). `host` renders again when they change.
 */
export function consumeAnnotationRights(host: ReactiveElement): () => AnnotationRights {
  const consumer = new ContextConsumer(host, { context: annotationRightsContext, subscribe: true });
  return () => consumer.value ?? noAnnotationRights;
}
