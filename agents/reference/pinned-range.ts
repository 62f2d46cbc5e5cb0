import { Fragment, type Node } from 'prosemirror-model';
import { schema } from '../../shared/model/schema.ts';
import { maxQuoteLength } from '../../shared/protocol/limits.ts';

/**
 * The pinned text of an instruction inside its target block, for the reference agent's text
 * changes (PROTOCOL.md REF1): `uppercase`, `lowercase` and `replace "A" with "B"` change only
 * the characters the instruction was pinned to, so a pin on five words of a paragraph leaves the
 * rest of it (another person's sentence, its comments' text) as it is.
 *
 * The agent knows the pin by its text only (the run item's `currentText`, the text the anchors
 * covered at Send, else its `quote`), read the way anchors.ts reads a quote: the block's text
 * with `\n` between its paragraphs and for a hard break. The first place that text occurs in the
 * block is the range; when it occurs more than once, the first is taken. Failing that, the same
 * text in another case is (an earlier instruction of the run on the same block changed its case).
 */

/** What an instruction was pinned to, as a run item carries it. */
export interface Pin {
  quote: string;
  currentText: string | null;
}

/** Characters `from`..`to` of a block's text, as `blockText` reads it. */
export interface TextRange {
  from: number;
  to: number;
}

/**
 * The range of `blocks` (one block's Markdown, parsed) the pin covers: `whole` when the pin is
 * empty or is the whole text, null when the pinned text is no longer in the block. A pin that
 * runs on past the block (it spanned several blocks) covers the part of it this block ends with;
 * a quote cut at `maxQuoteLength` covers from where its start occurs to the end of the block.
 */
export function pinnedRange(blocks: readonly Node[], pin: Pin): TextRange | 'whole' | null {
  const pinned = pin.currentText ?? pin.quote;
  const text = blockText(blocks);
  if (pinned === '' || pinned === text) return 'whole';
  const cut = pinned.length === maxQuoteLength && pinned.endsWith('…');
  const sought = cut ? pinned.slice(0, -1) : pinned;
  const at = find(text, sought);
  if (at >= 0) return { from: at, to: cut ? text.length : at + sought.length };
  // Spanning blocks: the quote is this block's last part, `\n`, then the next blocks' text.
  for (let end = sought.lastIndexOf('\n'); end > 0; end = sought.lastIndexOf('\n', end - 1)) {
    const head = sought.slice(0, end);
    if (text.endsWith(head)) return { from: text.length - head.length, to: text.length };
  }
  return null;
}

/**
 * Where `sought` first occurs in `text`; else, ignoring case, where an earlier instruction of the
 * run changed the pinned words' case (only where lower-casing keeps every length, so offsets hold).
 */
function find(text: string, sought: string): number {
  const at = text.indexOf(sought);
  if (at >= 0) return at;
  const lower = text.toLowerCase();
  const soughtLower = sought.toLowerCase();
  if (lower.length !== text.length || soughtLower.length !== sought.length) return -1;
  return lower.indexOf(soughtLower);
}

/** The text of `blocks` as a quote reads it. */
export function blockText(blocks: readonly Node[]): string {
  const doc = wrap(blocks);
  return textBefore(doc, doc.content.size);
}

/**
 * `blocks` with `change` applied to the characters of `range` only; every text node keeps its
 * marks (a text node the range cuts is split, each part with the same marks), and a text the
 * change empties is dropped.
 */
export function changeRange(blocks: readonly Node[], range: TextRange | 'whole', change: (text: string) => string): Node[] {
  const doc = wrap(blocks);
  const within = range === 'whole' ? { from: 0, to: Number.POSITIVE_INFINITY } : range;
  const changed = mapText(doc, 0, (node, pos) => {
    const text = node.text ?? '';
    const start = textBefore(doc, pos).length;
    const from = Math.max(0, Math.min(text.length, within.from - start));
    const to = Math.max(from, Math.min(text.length, within.to - start));
    return [text.slice(0, from), change(text.slice(from, to)), text.slice(to)]
      .filter((part) => part !== '')
      .map((part) => schema.text(part, node.marks));
  });
  const result: Node[] = [];
  changed.forEach((block) => result.push(block));
  return result;
}

function wrap(blocks: readonly Node[]): Node {
  return schema.topNodeType.create(null, Fragment.fromArray([...blocks]));
}

/** The quote-reading of `doc` up to position `pos`. */
function textBefore(doc: Node, pos: number): string {
  return doc.textBetween(0, pos, '\n', (leaf) => (leaf.type.name === 'hard_break' ? '\n' : ''));
}

/** `node` (whose content starts at `contentStart` of the wrapping doc) with each text node replaced by `map`'s nodes. */
function mapText(node: Node, contentStart: number, map: (text: Node, pos: number) => Node[]): Node {
  const children: Node[] = [];
  node.forEach((child, offset) => {
    const pos = contentStart + offset;
    if (child.isText) children.push(...map(child, pos));
    else children.push(mapText(child, pos + 1, map));
  });
  return node.copy(Fragment.fromArray(children));
}
