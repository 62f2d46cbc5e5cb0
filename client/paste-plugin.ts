import { Fragment, Slice, type Node } from 'prosemirror-model';
import { Plugin, PluginKey } from 'prosemirror-state';
import type { EditorView } from 'prosemirror-view';
import { schema } from '../shared/model/schema.ts';
import { newBlockId } from '../shared/model/block-ids.ts';
import { pastedUrl } from '../shared/model/safe-url.ts';
import { endUndoStep } from './editor-commands.ts';
import { onDemand } from './code-on-demand.ts';

/**
 * What a paste does beyond ProseMirror's own (EDIT4, LINK5):
 * - plain text that is Markdown becomes formatting, parsed by shared/model/markdown.ts; Ctrl+Shift+V
 *   (ProseMirror's "plain" paste) pastes it as it is; HTML is pasted as ProseMirror parses it;
 * - a URL pasted over selected text makes that text a link to it;
 * - every pasted block that carries an id gets a fresh one, so a block copied within the
 *   document never takes the original's id (the first block keeps a repeated id, see
 *   shared/model/block-ids.ts);
 * - a paste is an undo step of its own, apart from the typing before and after it.
 *
 * The Markdown parser is not part of the page's first script: it loads as the editor starts,
 * and a paste that comes before it has arrived waits for it.
 */
type MarkdownPaste = typeof import('../shared/model/markdown-paste.ts');
let markdownPaste: MarkdownPaste | null = null;
const loadMarkdownPaste = onDemand(() => import('../shared/model/markdown-paste.ts').then((module) => (markdownPaste = module)));

export function pastePlugin(): Plugin {
  // ProseMirror tells the text parser, not handlePaste, whether the paste is plain
  // (Ctrl+Shift+V): the parser runs first, for the same text, and leaves its answer here.
  let lastText: { text: string; plain: boolean } | null = null;
  return new Plugin<boolean>({
    key: pastedKey,
    // Whether the last change was a paste (with what was appended to it, such as block ids).
    state: {
      init: () => false,
      apply: (tr, wasPaste) => (tr.getMeta('uiEvent') === 'paste' ? true : tr.getMeta('appendedTransaction') ? wasPaste : false),
    },
    props: {
      clipboardTextParser(text, _context, plain) {
        lastText = { text, plain };
        // No slice: ProseMirror parses the text itself, as plain text.
        return (plain || !markdownPaste ? null : markdownPaste.markdownPasteSlice(text)) as Slice;
      },
      transformPasted: (slice) => new Slice(withFreshIds(slice.content), slice.openStart, slice.openEnd),
      handlePaste(view, event) {
        const text = event.clipboardData?.getData('text/plain') ?? '';
        const html = event.clipboardData?.getData('text/html') ?? '';
        const plain = !html && lastText?.text === text && lastText.plain;
        lastText = null;
        if (!plain && !html && !markdownPaste) {
          void loadMarkdownPaste().then((module) => view.isDestroyed || pasteLater(view, text, module));
          return true;
        }
        endUndoStep(view.state);
        return !plain && linkSelection(view, text);
      },
    },
    view: () => {
      void loadMarkdownPaste();
      return {
        update(view, before) {
          // After the binding has written the paste to Yjs (its view update runs first).
          if (view.state.doc !== before.doc && pastedKey.getState(view.state)) endUndoStep(view.state);
        },
      };
    },
  });
}

const pastedKey = new PluginKey<boolean>('tandem-paste');

/** A paste of `text` that waited for the parser, done as ProseMirror's own paste does it. */
function pasteLater(view: EditorView, text: string, { markdownPasteSlice }: MarkdownPaste): void {
  const slice = markdownPasteSlice(text);
  if (!slice) {
    view.pasteText(text);
    return;
  }
  endUndoStep(view.state);
  const fresh = new Slice(withFreshIds(slice.content), slice.openStart, slice.openEnd);
  view.dispatch(view.state.tr.replaceSelection(fresh).scrollIntoView().setMeta('paste', true).setMeta('uiEvent', 'paste'));
}

/** LINK5: a URL pasted over selected text links the text to it in one step; true when it did. */
function linkSelection(view: EditorView, text: string): boolean {
  const { state } = view;
  const { from, to, empty } = state.selection;
  const href = pastedUrl(text);
  if (empty || href === null) return false;
  const link = schema.marks.link;
  let allowed = false;
  state.doc.nodesBetween(from, to, (node) => {
    allowed ||= node.inlineContent && node.type.allowsMarkType(link);
    return !allowed;
  });
  if (!allowed) return false;
  const tr = state.tr.removeMark(from, to, link).addMark(from, to, link.create({ href }));
  view.dispatch(tr.setMeta('paste', true).setMeta('uiEvent', 'paste'));
  return true;
}

function withFreshIds(fragment: Fragment): Fragment {
  const nodes: Node[] = [];
  fragment.forEach((node) => {
    const content = node.isLeaf ? node.content : withFreshIds(node.content);
    const renewed = typeof node.attrs.id === 'string' && node.attrs.id !== '' ? { ...node.attrs, id: newBlockId() } : node.attrs;
    nodes.push(renewed === node.attrs && content === node.content ? node : node.type.create(renewed, content, node.marks));
  });
  return Fragment.fromArray(nodes);
}
