import type { ClaimedRun } from '../agent-api-client.ts';
import type { ToolCall } from './tool-loop.ts';

/**
 * The activity line of a tool call, for the people watching the run (MODEL8): blocks by their
 * number in the document as claimed, instructions by their number in the run, as the review
 * shows them ("changing block 3 for instruction 2", "refused 1: …").
 */
export function describeToolCall(call: ToolCall, run: ClaimedRun): string {
  const args = parse(call.arguments);
  const block = blockLabel(run, args.blockId);
  const instruction = instructionNumber(run, args.instructionId);
  const forInstruction = instruction === null ? '' : ` for instruction ${instruction}`;
  switch (call.name) {
    case 'read_document':
      return 'reading the document';
    case 'read_block':
      return `reading ${block}`;
    case 'replace_block':
      return `changing ${block}${forInstruction}`;
    case 'rewrite_block':
      return `rewriting ${block}${forInstruction}`;
    case 'insert_after':
      return `adding text after ${block}${forInstruction}`;
    case 'delete_block':
      return `deleting ${block}${forInstruction}`;
    case 'refuse':
      return `refused ${instruction ?? 'an instruction'}: ${typeof args.reason === 'string' ? args.reason : ''}`;
    default:
      return `asked for a tool "${call.name.slice(0, 40)}" it does not have`;
  }
}

function blockLabel(run: ClaimedRun, blockId: unknown): string {
  const index = run.document.blocks.findIndex((block) => block.id === blockId);
  return index < 0 ? 'a block' : `block ${index + 1}`;
}

function instructionNumber(run: ClaimedRun, instructionId: unknown): number | null {
  const index = run.items.findIndex((item) => item.instructionId === instructionId);
  return index < 0 ? null : index + 1;
}

function parse(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
