import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as Y from 'yjs';
import { encodedNewTextState } from '../../server/docs/new-text-state.ts';
import { writeNewDoc } from '../../server/docs/create-doc.ts';
import { markdownToDoc } from '../../shared/model/markdown.ts';
import { markdown, unmarkedMarkdown } from '../helpers/markdown-arbitrary.ts';

/*
 * A new text's state written straight from its content must be the bytes of the Y.Doc that
 * y-prosemirror fills with it, encoded, for the same client id; content it does not write
 * (marks) is answered null and built as before.
 */

const seed = process.env.TANDEM_SEED ? Number(process.env.TANDEM_SEED) : undefined;

describe('a new text state written directly (server/docs/new-text-state.ts)', () => {
  it('[LIMIT10] is byte for byte the state of the Y.Doc y-prosemirror builds from the same content', () => {
    let written = 0;
    fc.assert(
      fc.property(fc.oneof(unmarkedMarkdown, markdown), fc.string({ maxLength: 12 }), fc.integer({ min: 0, max: 2 ** 32 - 1 }), (source, title, client) => {
        const content = markdownToDoc(source);
        if (content.childCount === 0) return;
        const direct = encodedNewTextState(content, { title, kind: 'text' }, client);
        if (direct === null) return;
        written++;
        const ydoc = new Y.Doc();
        ydoc.clientID = client;
        writeNewDoc(ydoc, { kind: 'text', title, markdown: source }, content);
        expect(direct).toEqual(Y.encodeStateAsUpdate(ydoc));
      }),
      { seed, numRuns: 400 },
    );
    expect(written).toBeGreaterThan(100);
  });

  it('leaves content with marks to Yjs', () => {
    expect(encodedNewTextState(markdownToDoc('some **bold** text'), { title: '', kind: 'text' }, 7)).toBeNull();
  });
});
