import type { Command } from 'prosemirror-state';

/** The key that moves the focus from the text to its toolbar, as in TinyMCE and CKEditor. */
export const toolbarFocusKey = 'Alt-F10';

/**
 * Asks for the toolbar with the event `toolbar-focus-requested`, which bubbles from the text: the
 * editor puts the focus on the `Table` toolbar when the caret is in a table, otherwise on
 * `Formatting` (client/tandem-toolbar.ts); Escape there goes back to the text.
 */
export const focusToolbar: Command = (_state, _dispatch, view) => {
  if (!view) return false;
  view.dom.dispatchEvent(new CustomEvent('toolbar-focus-requested', { bubbles: true }));
  return true;
};
