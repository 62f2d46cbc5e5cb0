import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { authorName, comparisonView, reasonWords, versionBefore, versionTitle } from '../../client/version-history.ts';
import { markdownPreview } from '../../client/markdown-preview.ts';
import { colorAmong, preferredColor } from '../../client/presence-colors.ts';
import { VersionReason, type VersionView } from '../../shared/wire/versions.ts';
import type { TextAuthor } from '../../shared/wire/authorship.ts';

const ana: TextAuthor = { kind: 'person', name: 'Ana' };
const bo: TextAuthor = { kind: 'person', name: 'Bo' };
const echo: TextAuthor = { kind: 'agent', name: 'Echo', runId: 'r1', instructionId: 'i1', acceptedBy: 'Ana' };

function version(versionId: string, reason: VersionView['reason'], name = ''): VersionView {
  return { versionId, name, reason, createdAt: '2025-01-01T10:00:00.000Z', by: { name: 'Ana' } };
}

describe('a version as the history lists it', () => {
  it('[HIST6] is its name when a person named it', () => {
    expect(versionTitle(version('v1', 'named', 'Draft one'))).toBe('Draft one');
    expect(versionTitle(version('v2', 'restore', 'Before the trip'))).toBe('Before the trip');
  });

  it('[HIST6] says why it was recorded when nobody named it', () => {
    expect(versionTitle(version('v1', 'auto'))).toBe('Edited');
    expect(versionTitle(version('v2', 'run-accepted'))).toBe('Run accepted');
    expect(versionTitle(version('v3', 'run-discarded'))).toBe('Run discarded');
    expect(versionTitle(version('v4', 'run-reverted'))).toBe('Run reverted');
    expect(versionTitle(version('v5', 'restore'))).toBe('Restored');
  });

  it('[HIST6] has words for every reason the wire allows', () => {
    expect(Object.keys(reasonWords).sort()).toEqual([...VersionReason.options].sort());
  });

  it('finds the version recorded before one, in a list newest first', () => {
    const versions = [version('v3', 'auto'), version('v2', 'named', 'Draft one'), version('v1', 'auto')];
    expect(versionBefore(versions, 'v3')?.versionId).toBe('v2');
    expect(versionBefore(versions, 'v2')?.versionId).toBe('v1');
    expect(versionBefore(versions, 'v1')).toBeNull();
    expect(versionBefore(versions, 'gone')).toBeNull();
  });
});

describe('a comparison as the history shows it', () => {
  it('[HIST6] groups the changes by block in their order, insertions and deletions apart', () => {
    const view = comparisonView({
      changes: [
        { kind: 'delete', blockId: 'b1', text: 'old', by: ana },
        { kind: 'insert', blockId: 'b1', text: 'new', by: bo },
        { kind: 'insert', blockId: 'b2', text: 'more', by: bo },
      ],
    });
    expect(view.blocks.map((block) => [block.blockId, block.pieces.map((piece) => `${piece.kind}:${piece.text}`)])).toEqual([
      ['b1', ['delete:old', 'insert:new']],
      ['b2', ['insert:more']],
    ]);
    expect(view.blocks[0].pieces.map((piece) => piece.words)).toEqual(['Removed, written by Ana', 'Added by Bo']);
  });

  it('[HIST6] colours each change by its author: one colour per author, none shared, listed once each', () => {
    const view = comparisonView({
      changes: [
        { kind: 'insert', blockId: 'b1', text: 'a', by: ana },
        { kind: 'insert', blockId: 'b1', text: 'b', by: bo },
        { kind: 'delete', blockId: 'b2', text: 'c', by: ana },
        { kind: 'insert', blockId: 'b3', text: 'd', by: echo },
      ],
    });
    const colors = view.blocks.flatMap((block) => block.pieces.map((piece) => piece.color));
    expect(colors[0]).toBe(colors[2]);
    expect(new Set(colors).size).toBe(3);
    expect(view.authors).toEqual([
      { name: 'Ana', color: colors[0] },
      { name: 'Bo', color: colors[1] },
      { name: 'agent Echo', color: colors[3] },
    ]);
  });

  it('[HIST6] gives an author the colour the presence rule gives them after the authors before them', () => {
    const view = comparisonView({
      changes: [
        { kind: 'insert', blockId: 'b1', text: 'a', by: ana },
        { kind: 'insert', blockId: 'b1', text: 'b', by: bo },
      ],
    });
    expect(view.authors[0].color).toBe(preferredColor('Ana'));
    expect(view.authors[1].color).toBe(colorAmong('Bo', [preferredColor('Ana')]));
  });

  it('tells a person and an agent of one name apart', () => {
    expect(authorName({ kind: 'person', name: 'Echo' })).toBe('Echo');
    expect(authorName(echo)).toBe('agent Echo');
    const view = comparisonView({
      changes: [
        { kind: 'insert', blockId: 'b1', text: 'a', by: { kind: 'person', name: 'Echo' } },
        { kind: 'insert', blockId: 'b1', text: 'b', by: echo },
      ],
    });
    expect(view.authors.map((author) => author.name)).toEqual(['Echo', 'agent Echo']);
    expect(view.authors[0].color).not.toBe(view.authors[1].color);
  });

  it('is empty when nothing changed', () => {
    expect(comparisonView({ changes: [] })).toEqual({ blocks: [], authors: [] });
  });
});

describe('a version’s Markdown drawn read-only', () => {
  const { document } = new JSDOM('<!doctype html><body></body>').window;

  it('draws its blocks and marks as HTML', () => {
    const frame = markdownPreview('# Title\n\nSome **bold** text\n\n- one\n- two', document);
    expect([...frame.children].map((child) => child.tagName)).toEqual(['H1', 'P', 'UL']);
    expect(frame.querySelector('strong')?.textContent).toBe('bold');
    expect(frame.querySelectorAll('li')).toHaveLength(2);
  });

  it('[LINK2] links a safe address and leaves a refused one as text', () => {
    const frame = markdownPreview('[good](https://example.com/a) and [bad](javascript:alert(1))', document);
    expect([...frame.querySelectorAll('a')].map((link) => link.getAttribute('href'))).toEqual(['https://example.com/a']);
    expect(frame.textContent).toBe('good and [bad](javascript:alert(1))');
  });

  it('shows an image as its description, loading nothing', () => {
    const frame = markdownPreview(`![A cat on a mat](/api/docs/d1/assets/${'a'.repeat(64)})\n\n![](https://example.com/b.png)`, document);
    expect(frame.querySelector('img')).toBeNull();
    expect([...frame.children].map((child) => child.textContent)).toEqual(['Image: A cat on a mat', 'Image: no description']);
  });
});
