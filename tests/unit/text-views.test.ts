import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as Y from 'yjs';
import { importTextState, readTextViews, withTextDoc } from '../../server/docs/read-text-views.ts';
import { searchEntryOf } from '../../server/docs/search-entry.ts';
import { markdown, unmarkedMarkdown } from '../helpers/markdown-arbitrary.ts';

describe('text views (server/docs/read-text-views.ts)', () => {
  it('[LIMIT10] of an import, its search entry (CAT2) and its client ids (WHO6), written from the text its state is written from, are what reading that state back gives', () => {
    fc.assert(
      fc.property(fc.oneof(unmarkedMarkdown, markdown), (source) => {
        const { state, clients, views, search } = importTextState({ title: source.length % 2 === 0 ? 'Imported' : '', markdown: source });
        expect(views).toEqual(readTextViews({ stored: { state, updates: [], lastSeq: 0 } }));
        expect(views).toEqual(readTextViews({ live: state }));
        // The same bytes as a logged update: read through a Y.Doc, never straight from the bytes (stored-text-content.ts).
        expect(views).toEqual(readTextViews({ stored: { state: null, updates: [state], lastSeq: 1 } }));
        expect(search).toEqual(withTextDoc({ live: state }, searchEntryOf));
        expect(clients).toEqual([...Y.parseUpdateMeta(state).to.keys()]);
      }),
      { numRuns: Number(process.env.TEXT_VIEWS_RUNS ?? 25) },
    );
  });

  it('[CAT1] of an import without a title are titled by the first line within the blocks a reading looks in, and not beyond', () => {
    for (const rules of [0, 10, 49, 50, 80]) {
      const source = [...Array.from({ length: rules }, () => '---'), 'First line', 'Second'].join('\n\n');
      const { state, views } = importTextState({ title: '', markdown: source });
      expect(views).toEqual(readTextViews({ live: state }));
      expect(views.title).toBe(rules < 50 ? 'First line' : '');
    }
  });
});
