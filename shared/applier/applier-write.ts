import * as Y from 'yjs';
import { Fragment, Mark, type Node } from 'prosemirror-model';
import { schema } from '../model/schema.ts';
import { withoutChangeMarks } from '../model/markdown.ts';
import { textDiff, type TextDiffPart } from './text-diff.ts';

/**
 * The applier's Yjs writer: writes a ProseMirror block over the Yjs node of a block with the
 * smallest change it can find, and puts the review's `change` mark on exactly the characters
 * it inserts.
 *
 * It follows y-prosemirror's `updateYFragment` (children equal from the left and from the
 * right are kept; the rest are paired in order: texts diffed in place (a character diff cut
 * to human-sized pieces), elements of the same type updated recursively, anything else replaced) and
 * writes the same Yjs content an editor would, with two differences that the applier needs:
 * - equality is exact. y-prosemirror 1.3.7 takes a text whose mark has no attributes (`em`,
 *   `strong`…) as equal to the same text under another such mark (yjs/y-prosemirror#197), so
 *   an agent's `*a*` → `**a**` would be dropped without a word;
 * - it reads the live Y.Doc without projecting it, so it never deletes content that the schema
 *   cannot build (the live document is only read by y-prosemirror on a scratch copy).
 * Only the blocks it is given are visited: untouched blocks keep their Yjs nodes untouched.
 */

/** A child as y-prosemirror pairs it with a Yjs child: a node, or a run of text (a Y.XmlText). */
type Child = Node | Node[];

/** The ProseMirror node a Yjs element holds, or null when the schema cannot build it. */
export function readBlock(yelement: Y.XmlElement): Node | null {
  if (!(yelement.nodeName in schema.nodes)) return null;
  try {
    const children = readChildren(yelement);
    return children === null ? null : schema.node(yelement.nodeName, yelement.getAttributes(), children.flat());
  } catch {
    // A mark or text the schema refuses (bad attributes, empty text): unreadable, never deleted.
    return null;
  }
}

/**
 * Writes `after` over `yelement`, which has its type (its content is read again here). Text it
 * inserts gets `mark` (when given). With `keepChangeMarks` (the applier: `after` comes from
 * Markdown, which has no change marks) change marks are no difference and kept characters
 * keep theirs; without it (Accept run) they are written as `after` has them. Only characters
 * whose marks change are formatted; `formatAll` formats every character of a changed text (the
 * reference tests/unit/applier-write.test.ts holds the shortcut to).
 */
export function updateBlock(yelement: Y.XmlElement, after: Node, mark: Mark | null, keepChangeMarks = true, formatAll = false): void {
  for (const [key, value] of Object.entries(after.attrs)) {
    if (value === null) {
      if (yelement.getAttribute(key) !== undefined) yelement.removeAttribute(key);
    } else if (yelement.getAttribute(key) !== value) {
      yelement.setAttribute(key, value);
    }
  }
  for (const key of Object.keys(yelement.getAttributes())) {
    if (!(key in after.attrs)) yelement.removeAttribute(key);
  }
  const ychildren = yelement.toArray();
  const olds = ychildren.map(readChild);
  const news = normalize(after);
  const min = Math.min(olds.length, news.length);
  let left = 0;
  let right = 0;
  while (left < min && sameChild(olds[left], news[left], keepChangeMarks)) left++;
  while (left + right < min && sameChild(olds[olds.length - right - 1], news[news.length - right - 1], keepChangeMarks)) right++;
  let y = left;
  let p = left;
  // Paired in order; `y` indexes the live children, which stay aligned with `olds` here.
  for (; y < olds.length - right && p < news.length - right; y++, p++) {
    const ychild = ychildren[y];
    const old = olds[y];
    const next = news[p];
    if (ychild instanceof Y.XmlText && Array.isArray(old) && Array.isArray(next)) {
      // The marks never change the characters: one diff serves the marking and the writing.
      const parts = textDiff(textOf(old), textOf(next));
      updateText(ychild, old, keepChangeMarks ? markTextRun(old, next, mark, parts) : next, parts, formatAll);
    } else if (ychild instanceof Y.XmlElement && old !== null && !Array.isArray(old) && !Array.isArray(next) && old.type === next.type) {
      updateBlock(ychild, next, mark, keepChangeMarks, formatAll);
    } else {
      yelement.delete(y, 1);
      yelement.insert(y, [newType(markAll(next, mark, after))]);
    }
  }
  const extraY = olds.length - right - y;
  if (extraY > 0) {
    const lone = ychildren[y];
    // As y-prosemirror (#108): an element emptied of its only text keeps the Y.XmlText, so
    // that what someone types in it meanwhile is not deleted with it.
    if (olds.length === 1 && news.length === 0 && lone instanceof Y.XmlText) lone.delete(0, lone.length);
    else yelement.delete(y, extraY);
  }
  const extraP = news.slice(p, news.length - right);
  if (extraP.length > 0) yelement.insert(y, extraP.map((child) => newType(markAll(child, mark, after))));
}

/** A new (not yet integrated) Yjs element holding `block`, its text marked with `mark`. */
export function newBlock(block: Node, mark: Mark | null): Y.XmlElement {
  return newType(markAll(block, mark, schema.topNodeType.create())) as Y.XmlElement;
}

function newType(child: Child): Y.XmlElement | Y.XmlText {
  if (Array.isArray(child)) {
    const ytext = new Y.XmlText();
    ytext.applyDelta(child.map((text) => ({ insert: text.text ?? '', attributes: attributesOf(text.marks) })));
    return ytext;
  }
  const yelement = new Y.XmlElement(child.type.name);
  for (const [key, value] of Object.entries(child.attrs)) {
    if (value !== null) yelement.setAttribute(key, value);
  }
  yelement.insert(0, normalize(child).map(newType));
  return yelement;
}

/**
 * Rewrites `ytext`, which reads as `old`, to `marked` by `parts`, the character diff from its
 * text to `marked`'s: the deletions and insertions written where they fall (kept characters
 * stay the same Yjs items, so anchors and concurrent typing between them survive), inserted
 * text given its marks as it is inserted, and kept characters formatted only where their marks
 * change. When a mark in the text is stored otherwise than ProseMirror would write it (a
 * hashed name, attributes missing or extra), or with `formatAll`, every character is formatted
 * instead, which rewrites such marks as ProseMirror writes them.
 */
function updateText(ytext: Y.XmlText, old: readonly Node[], marked: readonly Node[], parts: readonly TextDiffPart[], formatAll: boolean): void {
  const cleared: Record<string, null> = {};
  let written = true;
  for (let item = ytext._start; item !== null; item = item.right) {
    if (item.deleted || !(item.content instanceof Y.ContentFormat)) continue;
    cleared[item.content.key] = null;
    written &&= writtenAsProseMirror(item.content.key, item.content.value);
  }
  if (formatAll || !written) {
    formatEveryCharacter(ytext, marked, parts, cleared);
    return;
  }
  const before = new TextRuns(old);
  const target = new TextRuns(marked);
  let at = 0;
  let from = 0;
  for (const { kind, text } of parts) {
    if (kind === 'removed') {
      ytext.delete(at, text.length);
      from += text.length;
      continue;
    }
    const end = at + text.length;
    while (at < end) {
      const marks = target.marksAt(at);
      let length = Math.min(end, target.endOf(at)) - at;
      if (kind === 'added') {
        ytext.insert(at, text.slice(at + text.length - end, at + text.length - end + length), attributesOf(marks));
      } else {
        length = Math.min(length, before.endOf(from) - from);
        if (!Mark.sameSet(before.marksAt(from), marks)) ytext.format(at, length, { ...cleared, ...attributesOf(marks) });
        from += length;
      }
      at += length;
    }
  }
}

/** The full rewrite: deletions and insertions, then every character set to its marks. */
function formatEveryCharacter(ytext: Y.XmlText, marked: readonly Node[], parts: readonly TextDiffPart[], cleared: Record<string, null>): void {
  let at = 0;
  for (const { kind, text } of parts) {
    if (kind === 'removed') ytext.delete(at, text.length);
    else {
      if (kind === 'added') ytext.insert(at, text);
      at += text.length;
    }
  }
  ytext.applyDelta(marked.map((text) => ({ retain: (text.text ?? '').length, attributes: { ...cleared, ...attributesOf(text.marks) } })));
}

/** Whether a format item holds what ProseMirror's mark would write: its name, and exactly its attributes. */
function writtenAsProseMirror(key: string, value: unknown): boolean {
  if (value === null) return true;
  const type = schema.marks[key];
  if (type === undefined || typeof value !== 'object' || Array.isArray(value)) return false;
  try {
    const attrs = type.create(value as Record<string, unknown>).attrs as Record<string, unknown>;
    const keys = Object.keys(value);
    return keys.length === Object.keys(attrs).length && keys.every((name) => (value as Record<string, unknown>)[name] === attrs[name]);
  } catch {
    return false;
  }
}

/** A run of text nodes read by character offset, offsets asked in increasing order. */
class TextRuns {
  private index = 0;
  private start = 0;
  constructor(private readonly texts: readonly Node[]) {}
  /** The marks of the character at `offset`. */
  marksAt(offset: number): readonly Mark[] {
    return this.seek(offset).marks;
  }
  /** The offset where the text node holding `offset` ends. */
  endOf(offset: number): number {
    const text = this.seek(offset);
    return this.start + (text.text ?? '').length;
  }
  private seek(offset: number): Node {
    while (offset >= this.start + (this.texts[this.index].text ?? '').length) {
      this.start += (this.texts[this.index].text ?? '').length;
      this.index++;
    }
    return this.texts[this.index];
  }
}

/** What a Yjs child holds, for comparison: a node, a run of text nodes, or null if unreadable. */
function readChild(ychild: unknown): Child | null {
  if (ychild instanceof Y.XmlText) return readText(ychild);
  return ychild instanceof Y.XmlElement ? readBlock(ychild) : null;
}

function readChildren(yelement: Y.XmlElement): Child[] | null {
  const children: Child[] = [];
  for (const ychild of yelement.toArray()) {
    const child = readChild(ychild);
    if (child === null) return null;
    children.push(child);
  }
  return children;
}

const hashedMarkName = /(.*)(--[a-zA-Z0-9+/=]{8})$/;

/** The mark a Yjs format key names (y-prosemirror may append a hash to the mark's name). */
export function markNameOf(key: string): string {
  return hashedMarkName.exec(key)?.[1] ?? key;
}

function readText(ytext: Y.XmlText): Node[] | null {
  const texts: Node[] = [];
  for (const op of ytext.toDelta() as { insert: unknown; attributes?: Record<string, unknown> }[]) {
    if (typeof op.insert !== 'string') return null;
    const marks: Mark[] = [];
    for (const [key, value] of Object.entries(op.attributes ?? {})) {
      const name = markNameOf(key);
      if (!(name in schema.marks)) return null;
      marks.push(schema.mark(name, value as Record<string, unknown>));
    }
    texts.push(schema.text(op.insert, marks));
  }
  return texts;
}

function attributesOf(marks: readonly Mark[]): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const mark of marks) attributes[mark.type.name] = mark.attrs;
  return attributes;
}

/** Equal (apart from change marks, with `ignoreChangeMarks`). */
function sameChild(a: Child | null, b: Child, ignoreChangeMarks: boolean): boolean {
  if (a === null || Array.isArray(a) !== Array.isArray(b)) return false;
  if (!ignoreChangeMarks) return Array.isArray(a) ? Fragment.fromArray(a).eq(Fragment.fromArray(b as Node[])) : a.eq(b as Node);
  if (Array.isArray(a)) return Fragment.fromArray(a.map((node) => withoutChangeMarks(node))).eq(Fragment.fromArray((b as Node[]).map((node) => withoutChangeMarks(node))));
  return withoutChangeMarks(a).eq(withoutChangeMarks(b as Node));
}

/** y-prosemirror's `normalizePNodeContent`: runs of text nodes grouped. */
function normalize(node: Node): Child[] {
  const children: Child[] = [];
  node.forEach((child) => {
    const last = children[children.length - 1];
    if (child.isText && Array.isArray(last)) last.push(child);
    else children.push(child.isText ? [child] : child);
  });
  return children;
}

/** Every text inside `child` (new content) marked with `mark`. */
function markAll(child: Child, mark: Mark | null, parent: Node): Child {
  if (mark === null) return child;
  if (Array.isArray(child)) {
    return parent.type.allowsMarkType(mark.type) ? child.map((text) => text.mark(mark.addToSet(text.marks))) : child;
  }
  if (child.isLeaf) return child;
  return child.copy(Fragment.fromArray(normalize(child).flatMap((grandchild) => markAll(grandchild, mark, child))));
}

/**
 * The new run with `mark` on exactly the characters the diff (`parts`, from `before`'s text to
 * `after`'s) inserts; kept characters keep the change mark they had.
 */
function markTextRun(before: Node[], after: Node[], mark: Mark | null, parts: readonly TextDiffPart[]): Node[] {
  // The change mark of each character of `after`, as runs: what the diff inserts gets `mark`,
  // a kept character the change mark it had in `before`.
  const oldRuns = before.map((text) => ({ length: (text.text ?? '').length, change: changeOf(text) }));
  const runs: ChangeRun[] = [];
  let oldRun = 0;
  let oldOffset = 0;
  for (const { kind, text } of parts) {
    if (kind === 'added') {
      addRun(runs, text.length, mark);
      continue;
    }
    // Kept characters take their old change mark; removed ones are skipped over.
    let length = text.length;
    while (length > 0) {
      const run = oldRuns[oldRun];
      const take = Math.min(length, run.length - oldOffset);
      if (kind === 'same') addRun(runs, take, run.change);
      length -= take;
      oldOffset += take;
      if (oldOffset === run.length) {
        oldRun++;
        oldOffset = 0;
      }
    }
  }
  // Cut `after`'s text nodes where the change runs begin and end.
  const out: Node[] = [];
  let runIndex = 0;
  let runLeft = runs[0]?.length ?? 0;
  for (const text of after) {
    const value = text.text ?? '';
    const plain = text.marks.filter((m) => m.type !== schema.marks.change);
    let start = 0;
    while (start < value.length) {
      while (runLeft === 0) runLeft = runs[++runIndex].length;
      const take = Math.min(runLeft, value.length - start);
      const change = runs[runIndex].change;
      out.push(schema.text(value.slice(start, start + take), change === null ? plain : change.addToSet(plain)));
      start += take;
      runLeft -= take;
    }
  }
  return out;
}

interface ChangeRun {
  length: number;
  change: Mark | null;
}

/** Appends `length` characters carrying `change` to `runs`, merged into the last run when it carries the same. */
function addRun(runs: ChangeRun[], length: number, change: Mark | null): void {
  const last = runs[runs.length - 1];
  if (last !== undefined && sameMark(last.change, change)) last.length += length;
  else if (length > 0) runs.push({ length, change });
}

function changeOf(text: Node): Mark | null {
  return text.marks.find((m) => m.type === schema.marks.change) ?? null;
}

function sameMark(a: Mark | null, b: Mark | null): boolean {
  return a === b || (a !== null && b !== null && a.eq(b));
}

function textOf(texts: Node[]): string {
  return texts.map((text) => text.text ?? '').join('');
}

