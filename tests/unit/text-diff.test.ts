import { describe, expect, it } from 'vitest';
import { textDiff } from '../../shared/applier/text-diff.ts';

describe('textDiff', () => {
  it('replaces whole words rather than sharing stray letters', () => {
    expect(textDiff('The quick fox and the quick dog', 'The slow fox and the slow dog')).toEqual([
      { kind: 'same', text: 'The ' },
      { kind: 'removed', text: 'quick' },
      { kind: 'added', text: 'slow' },
      { kind: 'same', text: ' fox and the ' },
      { kind: 'removed', text: 'quick' },
      { kind: 'added', text: 'slow' },
      { kind: 'same', text: ' dog' },
    ]);
  });

  it('rebuilds both texts from its pieces, surrogate pairs whole', () => {
    const before = 'Emoji 😀 here, and more';
    const after = 'Emoji 😃 there, and more!';
    const parts = textDiff(before, after);
    expect(parts.filter((p) => p.kind !== 'added').map((p) => p.text).join('')).toBe(before);
    expect(parts.filter((p) => p.kind !== 'removed').map((p) => p.text).join('')).toBe(after);
    for (const part of parts) expect(part.text).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
  });
});
