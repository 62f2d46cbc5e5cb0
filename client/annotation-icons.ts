import { svg } from 'lit';
import type { AnnotationKind } from '../shared/notes/annotations.ts';

/** The mark of each kind, in cards, buttons and the send dialog: a speech bubble and a bolt. */
export function kindIcon(kind: AnnotationKind) {
  const path =
    kind === 'comment'
      ? svg`<path d="M4 4h16a1 1 0 0 1 1 1v11a1 1 0 0 1-1 1H9l-5 4v-4H4a1 1 0 0 1-1-1V5a1 1 0 0 1 1-1z" />`
      : svg`<path d="M13 2 4.5 13.5H11L10 22l8.5-11.5H12z" />`;
  return svg`<svg class="kind-icon kind-icon-${kind}" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false">${path}</svg>`;
}
