import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { writeInitialContent } from '../../shared/model/doc-content.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { firstLineOf, setTitleOf, shownTitle } from '../../shared/model/doc-title.ts';
import { markdownToDoc } from '../../shared/model/markdown.ts';
import { importOrigin } from '../../shared/model/origins.ts';

function docWith(markdown: string, title?: string): Y.Doc {
  const ydoc = new Y.Doc();
  writeInitialContent(ydoc, markdownToDoc(markdown), importOrigin);
  if (title !== undefined) docParts(ydoc).meta.set('title', title);
  return ydoc;
}

describe('a document title', () => {
  it('[CAT1] follows the first line of text while no title is set', () => {
    expect(shownTitle(docWith('Garden  *plan*\n\nsecond'))).toBe('Garden plan');
    expect(shownTitle(docWith('- \n- first item\n\nlater'))).toBe('first item');
    expect(shownTitle(docWith('> # Quoted **head**'))).toBe('Quoted head');
    expect(shownTitle(docWith(''))).toBe('');
  });

  it('[CAT1] is the set title once someone sets one', () => {
    const ydoc = docWith('Garden plan', 'Plans');
    expect(setTitleOf(ydoc)).toBe('Plans');
    expect(shownTitle(ydoc)).toBe('Plans');
  });

  it('[CAT1] counts the legacy title "Untitled" and a blank one as unset', () => {
    expect(setTitleOf(docWith('Garden', 'Untitled'))).toBe('');
    expect(shownTitle(docWith('Garden', 'Untitled'))).toBe('Garden');
    expect(shownTitle(docWith('Garden', '   '))).toBe('Garden');
  });

  it('[CAT1] is at most 200 characters', () => {
    expect(firstLineOf(docWith('x'.repeat(500)))).toHaveLength(200);
  });
});
