import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as Y from 'yjs';
import { importTextState, readTextViews, withTextDoc } from '../../server/docs/read-text-views.ts';
import { searchEntryOf } from '../../server/docs/search-entry.ts';
import { markdown } from '../helpers/markdown-arbitrary.ts';

describe('text views (server/docs/read-text-views.ts)', () => {
  it('[LIMIT10] of an import, its search entry (CAT2) and its client ids (WHO6), written from the text its state is written from, are what reading that state back gives', () => {
    fc.assert(
      fc.property(markdown, (source) => {
        const { state, clients, views, search } = importTextState({ title: source.length % 2 === 0 ? 'Imported' : '', markdown: source });
        expect(views).toEqual(readTextViews({ stored: { state, updates: [], lastSeq: 0 } }));
        expect(views).toEqual(readTextViews({ live: state }));
        expect(search).toEqual(withTextDoc({ live: state }, searchEntryOf));
        expect(clients).toEqual([...Y.parseUpdateMeta(state).to.keys()]);
      }),
      { numRuns: Number(process.env.TEXT_VIEWS_RUNS ?? 25) },
    );
  });
});
