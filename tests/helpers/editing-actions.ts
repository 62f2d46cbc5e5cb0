import fc from 'fast-check';
import type * as Y from 'yjs';
import type { Page } from 'playwright-core';
import { yXmlFragmentToProsemirrorJSON } from 'y-prosemirror';
import { docParts } from '../../shared/model/doc-layout.ts';

/** One thing a person does at the keyboard of the editor. */
export type EditingAction =
  | { kind: 'type'; text: string }
  | { kind: 'press'; key: string }
  | { kind: 'paste'; text: string }
  | { kind: 'compose'; text: string };

const words = ['a', 'bc', 'def', ' ', 'x y', 'Zz', '# ', '- ', '1. '];
const keys = [
  'Enter',
  'Enter',
  'Backspace',
  'Backspace',
  'Delete',
  'ArrowLeft',
  'ArrowRight',
  'Home',
  'End',
  'Shift+ArrowLeft',
  'Shift+ArrowRight',
  'Control+a',
  'Control+b',
  'Control+i',
  'Control+Alt+1',
  'Control+Alt+2',
  'Control+Alt+0',
  'Control+Shift+8',
  'Control+Shift+7',
  'Shift+Enter',
];
const largePaste = Array.from({ length: 400 }, (_, i) => `Pasted line ${i} of a long text.`).join('\n\n');
const pastes = ['pasted', 'one\ntwo', 'line one\n\nline two\n\nline three', largePaste];

/** Keys that move the caret by lines: where they land depends on the layout (fonts, widths). */
const verticalKeys = ['ArrowUp', 'ArrowDown'];

/**
 * Random sequences of typing, keys (Enter, deletes, moves, marks, block types, lists), paste (a
 * large one too) and IME composition. With `vertical: false`, no moves by line: for comparing
 * editors whose pages are laid out differently.
 */
export const editingActions = ({ maxLength = 14, vertical = true } = {}): fc.Arbitrary<EditingAction[]> =>
  fc.array(
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...words).map((text) => ({ kind: 'type' as const, text })) },
      { weight: 6, arbitrary: fc.constantFrom(...keys, ...(vertical ? verticalKeys : [])).map((key) => ({ kind: 'press' as const, key })) },
      { weight: 1, arbitrary: fc.constantFrom(...pastes).map((text) => ({ kind: 'paste' as const, text })) },
      { weight: 1, arbitrary: fc.constantFrom('ka', 'ni', 'ü').map((text) => ({ kind: 'compose' as const, text })) },
    ),
    { minLength: 1, maxLength },
  );

/**
 * How long a key stays down, in ms: a fast typist's pace. Chromium moves the caret for
 * navigation keys itself, and one pressed within a few milliseconds of a change to the text
 * around the caret can be lost there, in a plain ProseMirror editor as in Tandem's.
 */
const keyDownMs = 25;

/** Keys whose caret movement Chromium does itself (ProseMirror reads the result afterwards). */
const movesCaretNatively = (key: string) => /^(Shift\+)?(Arrow(Left|Right|Up|Down)|Home|End)$/.test(key);

/**
 * Waits until the page has painted twice: a person's next key never comes before the text they
 * see, and Chromium can drop a caret movement asked for while the text around the caret is
 * being redrawn (docs/design.md, "The editor", known limit).
 */
const nextFrames = (page: Page) => page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));

/** Does `action` in `page`, whose editor has the focus, as a person would at the keyboard. */
export async function perform(page: Page, action: EditingAction): Promise<void> {
  switch (action.kind) {
    case 'type':
      return page.keyboard.type(action.text, { delay: keyDownMs });
    case 'press':
      if (movesCaretNatively(action.key)) await nextFrames(page);
      return page.keyboard.press(action.key, { delay: keyDownMs });
    case 'paste':
      return paste(page, action.text);
    case 'compose':
      return compose(page, action.text);
  }
}

/**
 * Pastes `text` as the clipboard holds text copied from a plain-text editor: the `paste` event a
 * Ctrl+V fires, with the text as its only clipboard data.
 */
async function paste(page: Page, text: string): Promise<void> {
  await page.evaluate((pasted) => {
    const data = new DataTransfer();
    data.setData('text/plain', pasted);
    const target = document.activeElement ?? document.body;
    target.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
}

/**
 * Types `text` through the input method, as a person writing with an IME does: Chromium's
 * composition (Input.imeSetComposition) grows one character at a time, then is committed
 * (Input.insertText).
 */
async function compose(page: Page, text: string): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  try {
    for (let length = 1; length <= text.length; length++) {
      const part = text.slice(0, length);
      await cdp.send('Input.imeSetComposition', { text: part, selectionStart: part.length, selectionEnd: part.length });
    }
    await cdp.send('Input.insertText', { text });
  } finally {
    await cdp.detach();
  }
}

/** How an action sequence reads in a failure message. */
export const describeActions = (actions: readonly EditingAction[]): string =>
  actions
    .map((action) => (action.kind === 'press' ? action.key : `${action.kind}(${JSON.stringify(action.text.length > 60 ? `${action.text.slice(0, 40)}… (${action.text.length} characters)` : action.text)})`))
    .join(', ');

/** The text of `ydoc` as ProseMirror JSON, without block ids (which differ between editors by design) and attributes at their default. */
export function textWithoutIds(ydoc: Y.Doc): unknown {
  return stripIds(yXmlFragmentToProsemirrorJSON(docParts(ydoc).content));
}

function stripIds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripIds);
  if (!node || typeof node !== 'object') return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'attrs' && value && typeof value === 'object') {
      // An attribute left at its default (null) is absent from Yjs in one editor, stored in another.
      const kept = Object.entries(value).filter(([name, attr]) => name !== 'id' && attr !== null);
      if (kept.length > 0) copy.attrs = Object.fromEntries(kept);
    } else if (key === 'content' && Array.isArray(value) && value.length === 0) {
      // A block whose Yjs element holds an empty text is the same block as one that holds none.
    } else copy[key] = stripIds(value);
  }
  return copy;
}
