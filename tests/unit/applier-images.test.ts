import { describe, expect, it } from 'vitest';
import { applyOps } from '../../shared/applier/applier.ts';
import { assetUrl } from '../../shared/model/image-src.ts';
import { bytes, markdowns, replaceOp, setup } from '../helpers/applier-fixture.ts';

/* IMG4: what an agent may write of images through the applier (shared/applier/applier.ts, check 8). */

const own = assetUrl('doc1', 'ab'.repeat(32));
const notUploaded = assetUrl('doc1', 'cd'.repeat(32));
const otherDocs = assetUrl('doc2', 'ab'.repeat(32));

describe('applyOps: images', () => {
  it('[IMG4] writes an image of an https address and one uploaded into the document', () => {
    const { ydoc, blocks, run, origin } = setup();
    const result = applyOps(ydoc, [replaceOp(blocks[1], `![Chart](https://example.com/c.png)\n\n![Ours](${own})`)], { ...run, assets: new Set([own]) }, origin);
    expect(result.ok).toBe(true);
    expect(markdowns(ydoc).slice(1, 3)).toEqual(['![Chart](https://example.com/c.png)', `![Ours](${own})`]);
  });

  it('[IMG4] refuses an asset address of another document, or one never uploaded, and changes nothing', () => {
    for (const src of [otherDocs, notUploaded]) {
      const { ydoc, blocks, run, origin } = setup();
      const before = bytes(ydoc);
      const ops = [
        { op: 'insert_after' as const, blockId: blocks[0].id, markdown: 'Fine', instructionId: 'i1' },
        replaceOp(blocks[1], `Text\n\n- ![Made up](${src})`),
      ];
      const result = applyOps(ydoc, ops, { ...run, assets: new Set([own]) }, origin);
      expect(result).toEqual({
        ok: false,
        error: { code: 'UNKNOWN_ASSET', index: 1, blockId: blocks[1].id, message: expect.stringContaining(src) },
      });
      expect(bytes(ydoc)).toEqual(before);
    }
  });

  it('[IMG4] takes no asset address at all from a run that was given none', () => {
    const { ydoc, blocks, run, origin } = setup();
    const result = applyOps(ydoc, [replaceOp(blocks[1], `![Ours](${own})`)], run, origin);
    expect(result.ok ? null : result.error.code).toBe('UNKNOWN_ASSET');
  });
});
