import * as Y from 'yjs';
import { docParts, readMeta } from './doc-layout.ts';
import { maxTitleLength } from '../protocol/limits.ts';

/**
 * CAT1: a document's title. A title someone set (meta `title`) wins; while none is set the
 * document is called by the first line of its text, and with no text either it has no title
 * (the app shows the placeholder `Untitled`). Documents made before titles followed the text
 * hold the literal title "Untitled": it counts as unset, so such a document follows its first
 * line too, and typing in its empty title field does not append to the word.
 */

/** The title as older versions of the app stored it for a document nobody named. */
export const legacyUnsetTitle = 'Untitled';

/** A stored title as it counts: '' for none (empty, blank, or the legacy "Untitled"). */
export function countedTitle(stored: string): string {
  return stored.trim() === '' || stored === legacyUnsetTitle ? '' : stored;
}

/** The title someone set on the document, '' when none is set. */
export function setTitleOf(ydoc: Y.Doc): string {
  return countedTitle(readMeta(ydoc).title);
}

/** How many blocks the first line is looked for in: a title never costs a walk of the whole text. */
const firstLineSearch = 50;

/** The first line of text of a text Y.Doc: the first block with any text, its spaces collapsed, at most `maxTitleLength` characters. */
export function firstLineOf(ydoc: Y.Doc): string {
  let budget = firstLineSearch;
  const lineOf = (block: Y.XmlElement): string => {
    const parts: string[] = [];
    for (const child of block.toArray()) {
      if (child instanceof Y.XmlText) {
        for (const op of child.toDelta() as { insert: unknown }[]) if (typeof op.insert === 'string') parts.push(op.insert);
      } else {
        parts.push(' ');
      }
    }
    return parts.join('').replace(/\s+/g, ' ').trim();
  };
  const firstIn = (container: Y.XmlElement | Y.XmlFragment): string => {
    // Sibling by sibling: the top level of a long text is never copied into an array.
    for (let child = container.firstChild; child && budget-- > 0; child = child.nextSibling) {
      if (!(child instanceof Y.XmlElement)) continue;
      const line = textBlocks.has(child.nodeName) ? lineOf(child) : firstIn(child);
      if (line) return line;
    }
    return '';
  };
  return firstIn(docParts(ydoc).content).slice(0, maxTitleLength);
}

/** The document's title as everyone sees it: the set title, else the first line, else ''. */
export function shownTitle(ydoc: Y.Doc): string {
  return (setTitleOf(ydoc) || firstLineOf(ydoc)).slice(0, maxTitleLength);
}

/** The blocks whose content is a line of text; every other element holds blocks. */
const textBlocks = new Set(['paragraph', 'heading', 'code_block']);
