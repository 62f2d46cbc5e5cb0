import * as Y from 'yjs';
import { docParts } from '../../shared/model/doc-layout.ts';
import type { RestoredRange } from '../store/authorship-book.ts';

/**
 * HIST4: makes the text of `live` that of `version`, in the transaction the caller holds: the
 * blocks both begin and end with stay as they are, and the blocks between are replaced by
 * copies of the version's. The copies are new items of `live`'s client id; what is answered says,
 * for every copied character, the item of `version` it copies, so that restored text keeps its
 * writer (WHO4). A page's source is replaced whole.
 */
export function restoreContent(live: Y.Doc, version: Y.Doc): RestoredRange[] {
  const from = docParts(version);
  const into = docParts(live);
  const wantedHtml = from.html.toString();
  if (into.html.toString() !== wantedHtml) {
    into.html.delete(0, into.html.length);
    into.html.insert(0, wantedHtml);
  }
  const wanted = from.content.toArray();
  const present = into.content.toArray();
  const wantedKeys = wanted.map(keyOf);
  const presentKeys = present.map(keyOf);
  let head = 0;
  while (head < wanted.length && head < present.length && wantedKeys[head] === presentKeys[head]) head++;
  let tail = 0;
  while (
    tail < wanted.length - head &&
    tail < present.length - head &&
    wantedKeys[wanted.length - 1 - tail] === presentKeys[present.length - 1 - tail]
  ) {
    tail++;
  }
  const removed = present.length - head - tail;
  if (removed > 0) into.content.delete(head, removed);
  const originals = wanted.slice(head, wanted.length - tail);
  const copies = originals.map(copyOf);
  if (copies.length > 0) into.content.insert(head, copies);
  const ranges: RestoredRange[] = [];
  originals.forEach((original, index) => pairTexts(original, copies[index], ranges));
  return ranges;
}

type Child = Y.XmlElement | Y.XmlText | Y.XmlHook;

function keyOf(child: Child): string {
  return child.toString();
}

function copyOf(child: Child): Y.XmlElement | Y.XmlText {
  if (child instanceof Y.XmlHook) throw new Error('A document holds no hooks');
  return child.clone();
}

/** Walks an original and its integrated copy side by side, recording where each copied character of text came from. */
function pairTexts(original: Child, copy: Child, ranges: RestoredRange[]): void {
  if (original instanceof Y.XmlText && copy instanceof Y.XmlText) {
    pairText(original, copy, ranges);
    return;
  }
  if (original instanceof Y.XmlElement && copy instanceof Y.XmlElement) {
    const originals = original.toArray();
    const copies = copy.toArray();
    originals.forEach((child, index) => {
      const copied = copies[index];
      if (copied) pairTexts(child as Child, copied as Child, ranges);
    });
  }
}

/** The characters of a text as items: where each live string item starts in the text, its id and length. */
function stringItems(ytext: Y.XmlText): Array<{ offset: number; client: number; clock: number; length: number }> {
  const items = [];
  let offset = 0;
  for (let item = ytext._start; item !== null; item = item.right) {
    if (item.deleted || !(item.content instanceof Y.ContentString)) continue;
    items.push({ offset, client: item.id.client, clock: item.id.clock, length: item.length });
    offset += item.length;
  }
  return items;
}

function pairText(original: Y.XmlText, copy: Y.XmlText, ranges: RestoredRange[]): void {
  const copied = stringItems(copy);
  let at = 0;
  for (const source of stringItems(original)) {
    // One original item has one set of formats, so one copied item holds all of it.
    while (at < copied.length && copied[at].offset + copied[at].length <= source.offset) at++;
    const target = copied[at];
    if (!target || target.offset > source.offset) continue;
    const length = Math.min(source.length, target.offset + target.length - source.offset);
    ranges.push({ clock: target.clock + (source.offset - target.offset), length, fromClient: source.client, fromClock: source.clock });
  }
}
