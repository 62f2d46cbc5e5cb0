/**
 * A word diff for showing what a run changed in a block: pieces of text that stayed, were
 * removed or were added, in reading order, removals before additions.
 */

export type DiffPart = { kind: 'same' | 'removed' | 'added'; text: string };

/** Above this many cells the middle of the texts is shown as removed and added whole. */
const maxCells = 250_000;

export function diffWords(before: string, after: string): DiffPart[] {
  const a = tokens(before);
  const b = tokens(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const parts: DiffPart[] = [];
  const push = (kind: DiffPart['kind'], text: string) => {
    if (!text) return;
    const last = parts[parts.length - 1];
    if (last?.kind === kind) last.text += text;
    else parts.push({ kind, text });
  };
  push('same', a.slice(0, start).join(''));
  for (const part of middle(a.slice(start, endA), b.slice(start, endB))) push(part.kind, part.text);
  push('same', a.slice(endA).join(''));
  return joinAcrossSpaces(parts);
}

function tokens(text: string): string[] {
  return text.match(/\s+|[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu) ?? [];
}

/** The longest common subsequence of tokens, walked forwards. */
function middle(a: string[], b: string[]): DiffPart[] {
  if (a.length * b.length > maxCells) {
    return [
      { kind: 'removed', text: a.join('') },
      { kind: 'added', text: b.join('') },
    ];
  }
  const width = b.length + 1;
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i * width + j] =
        a[i] === b[j] ? lengths[(i + 1) * width + j + 1] + 1 : Math.max(lengths[(i + 1) * width + j], lengths[i * width + j + 1]);
    }
  }
  const parts: DiffPart[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      parts.push({ kind: 'same', text: a[i] });
      i++;
      j++;
    } else if (j >= b.length || (i < a.length && lengths[(i + 1) * width + j] >= lengths[i * width + j + 1])) {
      parts.push({ kind: 'removed', text: a[i++] });
    } else {
      parts.push({ kind: 'added', text: b[j++] });
    }
  }
  return parts;
}

/**
 * Changes separated only by spaces read as one change ("~~quick brown~~ slow red" rather than
 * "~~quick~~ slow ~~brown~~ red").
 */
function joinAcrossSpaces(parts: DiffPart[]): DiffPart[] {
  const out: DiffPart[] = [];
  let i = 0;
  while (i < parts.length) {
    if (parts[i].kind === 'same') {
      out.push(parts[i++]);
      continue;
    }
    let removed = '';
    let added = '';
    let end = i;
    for (let k = i; k < parts.length; k++) {
      const part = parts[k];
      if (part.kind === 'removed') removed += part.text;
      else if (part.kind === 'added') added += part.text;
      else if (/^\s+$/.test(part.text) && parts[k + 1] && parts[k + 1].kind !== 'same') {
        removed += part.text;
        added += part.text;
      } else break;
      end = k + 1;
    }
    if (removed) out.push({ kind: 'removed', text: removed });
    if (added) out.push({ kind: 'added', text: added });
    i = end;
  }
  return out;
}
