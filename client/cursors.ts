import type { DecorationAttrs } from 'prosemirror-view';
import { isPresenceColor } from '../shared/protocol/presence.ts';

/** What y-prosemirror hands the builders: the `user` of a peer's awareness state, unchecked. */
interface CursorUser {
  name?: unknown;
  color?: unknown;
}

const fallbackColor = '#777777';

/**
 * Builds another person's caret for y-prosemirror's cursor plugin. The name is set as text and
 * the colour through `style.setProperty`, and only when it is `#rrggbb` (PRES4): nothing a
 * peer publishes is parsed as HTML or as a style declaration.
 */
export function buildCursor(user: CursorUser): HTMLElement {
  const color = isPresenceColor(user.color) ? user.color : fallbackColor;
  const cursor = document.createElement('span');
  cursor.className = 'ProseMirror-yjs-cursor';
  cursor.style.setProperty('border-color', color);
  const label = document.createElement('div');
  label.style.setProperty('background-color', color);
  label.textContent = typeof user.name === 'string' ? user.name.slice(0, 200) : '';
  cursor.append('\u2060', label, '\u2060');
  return cursor;
}

/** The highlight of another person's selection: their colour, translucent, when valid. */
export function buildSelection(user: CursorUser): DecorationAttrs {
  const attrs: DecorationAttrs = { class: 'ProseMirror-yjs-selection' };
  if (isPresenceColor(user.color)) attrs.style = `background-color: ${user.color}70`;
  return attrs;
}
