import type { TextAuthor } from '../shared/wire/authorship.ts';
import type { VersionChange, VersionComparison, VersionReason, VersionView } from '../shared/wire/versions.ts';
import { colorAmong } from './presence-colors.ts';

/** HIST6: what the history says of a version nobody named: why it was recorded (HIST1). */
export const reasonWords: Record<VersionReason, string> = {
  named: 'Named',
  auto: 'Edited',
  'run-accepted': 'Run accepted',
  'run-discarded': 'Run discarded',
  'run-reverted': 'Run reverted',
  restore: 'Restored',
};

/** A version as the history lists it: its name, or without one the reason it was recorded. */
export function versionTitle(version: VersionView): string {
  return version.name || reasonWords[version.reason];
}

/** The version recorded just before `versionId` in `versions` (newest first); null for the oldest or one not listed. */
export function versionBefore(versions: readonly VersionView[], versionId: string): VersionView | null {
  const index = versions.findIndex((each) => each.versionId === versionId);
  return index < 0 ? null : (versions[index + 1] ?? null);
}

/** One change as the comparison shows it: its text in its author's colour, and in words what it is. */
export interface ChangePiece {
  kind: VersionChange['kind'];
  text: string;
  color: string;
  /** `Added by Ana`, `Removed, written by Ana`. */
  words: string;
}

/** The changes of one block, in document order. */
export interface ChangedBlock {
  blockId: string;
  pieces: ChangePiece[];
}

/** A comparison ready to draw: the changes block by block, and each author once with their colour. */
export interface ComparisonView {
  blocks: ChangedBlock[];
  authors: { name: string; color: string }[];
}

/** An author as the comparison names them: a person by name, an agent as `agent NAME`. */
export function authorName(by: TextAuthor): string {
  return by.kind === 'agent' ? `agent ${by.name}` : by.name;
}

/**
 * HIST6: `comparison` (HIST5) grouped by block, each change coloured by its author. The colours
 * follow the rule of the people present (client/presence-colors.ts, PRES7) over the authors in
 * the order they first appear: each takes the colour their name prefers unless an author before
 * them holds it, so two authors of one comparison never share a colour and an author alone
 * keeps the same colour from one comparison to the next. A comparison names its writers only
 * (WHO1), not their token's subject, so a person's colour here is not their cursor's.
 */
export function comparisonView(comparison: VersionComparison): ComparisonView {
  const colors = new Map<string, string>();
  const authors: ComparisonView['authors'] = [];
  const colorOf = (by: TextAuthor): string => {
    const name = authorName(by);
    let color = colors.get(name);
    if (color === undefined) {
      color = colorAmong(name, colors.values());
      colors.set(name, color);
      authors.push({ name, color });
    }
    return color;
  };
  const blocks: ChangedBlock[] = [];
  for (const change of comparison.changes) {
    const piece: ChangePiece = {
      kind: change.kind,
      text: change.text,
      color: colorOf(change.by),
      words: change.kind === 'insert' ? `Added by ${authorName(change.by)}` : `Removed, written by ${authorName(change.by)}`,
    };
    const last = blocks.at(-1);
    if (last?.blockId === change.blockId) last.pieces.push(piece);
    else blocks.push({ blockId: change.blockId, pieces: [piece] });
  }
  return { blocks, authors };
}
