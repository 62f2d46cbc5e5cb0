import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { importTextState, readTextViews } from '../../server/docs/read-text-views.ts';
import { markdown } from '../helpers/markdown-arbitrary.ts';

describe('text views (server/docs/read-text-views.ts)', () => {
  it('[LIMIT10] of an import, read from the Y.Doc its state is encoded from, are what reading that state back gives', () => {
    fc.assert(
      fc.property(markdown, (source) => {
        const { state, views } = importTextState({ title: 'Imported', markdown: source });
        expect(views).toEqual(readTextViews({ stored: { state, updates: [], lastSeq: 0 } }));
        expect(views).toEqual(readTextViews({ live: state }));
      }),
      { numRuns: 25 },
    );
  });
});
