import { schema } from '../../shared/model/schema.ts';
import { blockToMarkdown, markdownToBlocks } from '../../shared/model/markdown.ts';
import type { BlockView } from '../../shared/model/doc-content.ts';
import { parseInstruction, understoodInstructions } from './instruction-language.ts';
import { changeRange, pinnedRange, type Pin } from './pinned-range.ts';

/** An op as docs/api.md writes it. */
export type PlannedOp =
  | { op: 'replace_block'; blockId: string; markdown: string; expectHash: string; instructionId: string }
  | { op: 'insert_after'; blockId: string; markdown: string; instructionId: string }
  | { op: 'delete_block'; blockId: string; expectHash: string; instructionId: string }
  | { op: 'propose_variants'; blockId: string; expectHash: string; instructionId: string; candidates: string[] };

export type Plan = { kind: 'ops'; ops: PlannedOp[] } | { kind: 'refusal'; reason: string };

/**
 * What the reference agent does for one instruction on its target block, as it read it, and
 * the text it was pinned to (REF1: a text change stays inside the pinned range; without `pin`,
 * or with an empty one, it covers the block). Deterministic: the same instruction, block and
 * pin give the same plan.
 */
export function planInstruction(instructionId: string, instruction: string, block: BlockView | undefined, pin?: Pin): Plan {
  const action = parseInstruction(instruction);
  if (!action) {
    return {
      kind: 'refusal',
      reason: `I did not understand this instruction. I understand: ${understoodInstructions.join(' · ')}.`,
    };
  }
  if (!block) return { kind: 'refusal', reason: 'The text this instruction points at no longer exists.' };
  const target = { blockId: block.id, instructionId };

  switch (action.kind) {
    case 'set_text':
      return { kind: 'refusal', reason: 'set text works on an element of a page; in a text document, use replace "A" with "B".' };
    case 'delete':
      return { kind: 'ops', ops: [{ op: 'delete_block', ...target, expectHash: block.hash }] };
    case 'insert_after': {
      const paragraph = schema.nodes.paragraph.create(null, schema.text(action.text));
      return { kind: 'ops', ops: [{ op: 'insert_after', ...target, markdown: blockToMarkdown(paragraph) }] };
    }
    case 'replace_variants': {
      // VAR4: one candidate per alternative, each changed as a replace would change the block.
      const before = markdownToBlocks(block.markdown);
      const range = pin ? pinnedRange(before, pin) : 'whole';
      if (range === null) return { kind: 'refusal', reason: 'The text this instruction was pinned to is no longer in its block.' };
      const candidates = action.replacements.map((replacement) =>
        changeRange(before, range, (text) => text.split(action.find).join(replacement)).map(blockToMarkdown).join('\n\n'),
      );
      if (candidates.every((markdown) => markdown === block.markdown)) return { kind: 'refusal', reason: `"${action.find}" does not occur in this text.` };
      return { kind: 'ops', ops: [{ op: 'propose_variants', ...target, candidates, expectHash: block.hash }] };
    }
    case 'replace':
    case 'uppercase':
    case 'lowercase': {
      const change =
        action.kind === 'replace'
          ? (text: string) => text.split(action.find).join(action.replacement)
          : action.kind === 'uppercase'
            ? (text: string) => text.toUpperCase()
            : (text: string) => text.toLowerCase();
      const before = markdownToBlocks(block.markdown);
      const range = pin ? pinnedRange(before, pin) : 'whole';
      if (range === null) {
        return { kind: 'refusal', reason: 'The text this instruction was pinned to is no longer in its block.' };
      }
      const markdown = changeRange(before, range, change).map(blockToMarkdown).join('\n\n');
      if (markdown === block.markdown) {
        return {
          kind: 'refusal',
          reason: action.kind === 'replace' ? `"${action.find}" does not occur in this text.` : 'The text is already in that case.',
        };
      }
      return { kind: 'ops', ops: [{ op: 'replace_block', ...target, markdown, expectHash: block.hash }] };
    }
  }
}
