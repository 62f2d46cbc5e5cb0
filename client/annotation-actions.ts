import type * as Y from 'yjs';
import type { PinnedRange } from '../shared/model/anchors.ts';
import type { AnnotationKind, Author } from '../shared/notes/annotations.ts';
import {
  addTurn,
  createAnnotation,
  deleteAnnotation,
  editInstructionText,
  escalateComment,
  setAnchor,
  setInstructionState,
  setResolved,
  type WriteResult,
} from '../shared/notes/annotations-writers.ts';

/** What a card or the composer asks for; `text` for create, reply and edit. */
export type AnnotationRequest =
  | { type: 'reply' | 'edit'; id: string; text: string }
  | { type: 'resolve' | 'reopen' | 'escalate' | 'delete' | 'ready' | 'select'; id: string };

/**
 * The writes a person makes to a document's annotations (`<id>/notes`), as this person and at
 * the time of the call. Each returns the writer's result; nothing here touches the network:
 * the notes Y.Doc syncs on its own, now or when the server is back.
 */
export class AnnotationActions {
  constructor(
    private readonly notes: Y.Doc,
    private readonly author: Author,
    private readonly now: () => number = Date.now,
  ) {}

  /** `variants`: how many answers an instruction asks for (VAR1), 1 to 4; one unless given. */
  create(kind: AnnotationKind, pin: PinnedRange, text: string, variants = 1): WriteResult<{ id: string }> {
    const asked = kind === 'instruction' && variants > 1 ? { variants } : {};
    return createAnnotation(this.notes, { kind, ...pin, author: this.author, text: text.trim(), now: this.now(), ...asked });
  }

  /** Carries out a card's request other than `select`. */
  apply(request: AnnotationRequest): WriteResult {
    switch (request.type) {
      case 'reply':
        return addTurn(this.notes, request.id, { author: this.author, text: request.text.trim(), now: this.now() });
      case 'edit':
        return editInstructionText(this.notes, request.id, request.text.trim());
      case 'resolve':
      case 'reopen':
        return setResolved(this.notes, request.id, request.type === 'resolve');
      case 'escalate':
        return escalateComment(this.notes, request.id, this.author, this.now());
      case 'delete':
        return deleteAnnotation(this.notes, request.id);
      case 'ready':
        return setInstructionState(this.notes, request.id, 'queued', null);
      case 'select':
        return { ok: true };
    }
  }

  repin(id: string, pin: PinnedRange): WriteResult {
    return setAnchor(this.notes, id, { anchor: pin.anchor, blockId: pin.blockId });
  }
}
