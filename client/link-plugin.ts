import type { Mark, Node, ResolvedPos } from 'prosemirror-model';
import { Plugin, PluginKey, TextSelection, type Command, type EditorState } from 'prosemirror-state';
import type { EditorView } from 'prosemirror-view';
import { toggleMark } from 'prosemirror-commands';
import { schema } from '../shared/model/schema.ts';
import { safeLinkHref } from '../shared/model/safe-url.ts';

const linkType = schema.marks.link;

/** A run of text carrying one link mark. */
export interface LinkRange {
  from: number;
  to: number;
  href: string;
}

/** While the link box is open: the text the link is for (empty: the address is inserted there). */
export interface LinkEditing {
  from: number;
  to: number;
  /** The address the box starts with (the link's own when editing one). */
  href: string;
}

export interface LinkState {
  editing: LinkEditing | null;
}

type LinkMeta = { editing: LinkEditing | null };

export const linkKey = new PluginKey<LinkState>('tandem-links');

/**
 * The link box's state (LINK4): which text it is open for, mapped through every change while it
 * is open (another person's typing moves it; deleting all of its text closes it). The box itself
 * is drawn by <tandem-editor> from this state.
 */
export function linkPlugin(): Plugin<LinkState> {
  return new Plugin<LinkState>({
    key: linkKey,
    state: {
      init: () => ({ editing: null }),
      apply(tr, value) {
        const meta = tr.getMeta(linkKey) as LinkMeta | undefined;
        if (meta) return { editing: meta.editing };
        const editing = value.editing;
        if (!editing || !tr.docChanged) return value;
        const from = tr.mapping.mapResult(editing.from, 1);
        const to = tr.mapping.mapResult(editing.to, -1);
        if (editing.from < editing.to && to.pos <= from.pos) return { editing: null };
        return { editing: { ...editing, from: from.pos, to: Math.max(from.pos, to.pos) } };
      },
    },
    props: { handleDOMEvents: { click: onLinkClick } },
  });
}

/**
 * A click on a link in the text never navigates this tab (the app's router would take a link
 * to this site as its own page): in an editable view it places the caret, as in any text, and
 * with Ctrl (⌘) it opens the link in a new tab; a read-only view opens it in a new tab.
 */
function onLinkClick(view: EditorView, event: MouseEvent): boolean {
  const anchor = event.target instanceof Element ? event.target.closest('a') : null;
  if (!anchor || !view.dom.contains(anchor)) return false;
  event.preventDefault();
  const href = safeLinkHref(anchor.getAttribute('href'));
  if (href !== null && (!view.editable || event.ctrlKey || event.metaKey)) openInNewTab(href);
  return false;
}

/** The link whose text holds the caret or the whole selection; null when there is none. */
export function linkAt(state: EditorState): LinkRange | null {
  const { $from, to, empty } = state.selection;
  const found = linkAround($from, empty ? 'either' : 'after');
  return found && to <= found.to ? found : null;
}

/**
 * The link touching `$pos`: the text after it, or (with `either`, for a caret at a link's end)
 * the text before it.
 */
function linkAround($pos: ResolvedPos, side: 'after' | 'either'): LinkRange | null {
  const parent = $pos.parent;
  if (!parent.inlineContent) return null;
  const index = $pos.index();
  const after = index < parent.childCount ? index : -1;
  const before = $pos.textOffset > 0 ? index : index - 1;
  for (const at of side === 'either' ? [after, before] : [after]) {
    const mark = at >= 0 ? linkType.isInSet(parent.child(at).marks) : undefined;
    if (mark) return rangeOf(parent, $pos.start(), at, mark);
  }
  return null;
}

/** The positions of the children around `index` of `parent` (starting at `start`) that carry `mark`. */
function rangeOf(parent: Node, start: number, index: number, mark: Mark): LinkRange {
  let first = index;
  let last = index;
  while (first > 0 && mark.isInSet(parent.child(first - 1).marks)) first--;
  while (last < parent.childCount - 1 && mark.isInSet(parent.child(last + 1).marks)) last++;
  let from = start;
  for (let i = 0; i < first; i++) from += parent.child(i).nodeSize;
  let to = from;
  for (let i = first; i <= last; i++) to += parent.child(i).nodeSize;
  return { from, to, href: String(mark.attrs.href) };
}

/** Whether a link may be put on the selected text (not in code, not in a read-only view). */
const linkAllowed: Command = (state) => toggleMark(linkType, { href: '' })(state);

/**
 * Ctrl+K and the toolbar's `Link`: opens the link box for the link under the caret (to edit it),
 * or for the selected text, or for a caret outside any link (the address becomes linked text).
 */
export const openLinkEditor: Command = (state, dispatch, view) => {
  if (!linkKey.getState(state) || (view && !view.editable)) return false;
  const link = linkAt(state);
  const { from, to } = state.selection;
  if (!link && !linkAllowed(state)) return false;
  const editing = link ?? { from, to, href: '' };
  dispatch?.(state.tr.setMeta(linkKey, { editing } satisfies LinkMeta));
  return true;
};

/**
 * Closes the link box without a change. `restoreSelection` selects its text again (Escape);
 * otherwise the selection is left to what closed the box (a click elsewhere in the text).
 */
export function closeLinkEditor(restoreSelection: boolean): Command {
  return (state, dispatch) => {
    const editing = linkKey.getState(state)?.editing;
    if (!editing) return false;
    if (dispatch) {
      const tr = state.tr.setMeta(linkKey, { editing: null } satisfies LinkMeta);
      if (restoreSelection) tr.setSelection(TextSelection.create(tr.doc, editing.from, editing.to));
      dispatch(tr);
    }
    return true;
  };
}

/**
 * `Open link` and Alt+Enter: opens the link under the caret with `open` (a new tab, see
 * <tandem-editor>) when its target is one Tandem keeps (LINK1); read-only views too.
 */
export function openLinkAtCaret(open: (href: string) => void): Command {
  return (state) => {
    const link = linkAt(state);
    const href = link ? safeLinkHref(link.href) : null;
    if (href === null) return false;
    open(href);
    return true;
  };
}

/**
 * Makes the box's text a link to `href` (which the caller has checked, LINK1) in one step; an
 * empty box inserts `href` itself as the linked text. The caret ends after the link.
 */
export function applyLink(href: string): Command {
  return (state, dispatch) => {
    const editing = linkKey.getState(state)?.editing;
    if (!editing || safeLinkHref(href) === null) return false;
    if (dispatch) {
      const mark = linkType.create({ href });
      const tr = state.tr.setMeta(linkKey, { editing: null } satisfies LinkMeta);
      let end = editing.to;
      if (editing.from === editing.to) {
        tr.insert(editing.from, schema.text(href, [mark]));
        end = editing.from + href.length;
      } else {
        tr.removeMark(editing.from, editing.to, linkType).addMark(editing.from, editing.to, mark);
      }
      dispatch(tr.setSelection(TextSelection.create(tr.doc, end)).scrollIntoView());
    }
    return true;
  };
}

/** `Remove link`: the link's text (the box's, or the one under the caret) stays, unlinked. */
export const removeLink: Command = (state, dispatch, view) => {
  if (view && !view.editable) return false;
  const editing = linkKey.getState(state)?.editing;
  const range = editing && editing.from < editing.to ? editing : linkAt(state);
  if (!range) return false;
  if (dispatch) {
    const tr = state.tr.removeMark(range.from, range.to, linkType).setMeta(linkKey, { editing: null } satisfies LinkMeta);
    dispatch(tr.setSelection(TextSelection.create(tr.doc, range.to)));
  }
  return true;
};

/** Opens `href` in a new tab that gets neither a handle on this page nor its address. */
export function openInNewTab(href: string): void {
  window.open(href, '_blank', 'noopener,noreferrer');
}
