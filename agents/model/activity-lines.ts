import type { ClaimedRun } from '../agent-api-client.ts';
import type { ToolCall } from './tool-loop.ts';

/**
 * The activity line of a tool call, for the people watching the run (MODEL8): blocks by their
 * number in the document as claimed, a page's elements by their number and tag in the page as
 * claimed (PAGE12), instructions by their number in the run, as the review shows them
 * ("changing block 3 for instruction 2", "replacing element 2 <h2> for instruction 1",
 * "refused 1: …"). Every tool of tools.ts and page-tools.ts has its line.
 */
export function describeToolCall(call: ToolCall, run: ClaimedRun): string {
  const args = parse(call.arguments);
  const block = blockLabel(run, args.blockId);
  const instruction = instructionNumber(run, args.instructionId);
  const forInstruction = instruction === null ? '' : ` for instruction ${instruction}`;
  const element = elementLabel(run, args.elementId);
  switch (call.name) {
    case 'read_document':
      return 'reading the document';
    case 'read_block':
      return `reading ${block}`;
    case 'replace_block':
      return `changing ${block}${forInstruction}`;
    case 'rewrite_block':
      return `rewriting ${block}${forInstruction}`;
    case 'rewrite_variants':
    case 'propose_variants':
      return `proposing variants of ${block}${forInstruction}`;
    case 'insert_after':
      return `adding text after ${block}${forInstruction}`;
    case 'delete_block':
      return `deleting ${block}${forInstruction}`;
    case 'read_page':
      return 'reading the page';
    case 'set_text':
      return `changing the text of ${element}${forInstruction}`;
    case 'set_attribute':
      return `setting ${typeof args.name === 'string' ? `"${args.name.slice(0, 40)}"` : 'an attribute'} of ${element}${forInstruction}`;
    case 'replace_element':
      return `replacing ${element}${forInstruction}`;
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

function elementLabel(run: ClaimedRun, elementId: unknown): string {
  const elements = run.document.elements ?? [];
  const index = elements.findIndex((element) => element.id === elementId);
  return index < 0 ? 'an element' : `element ${index + 1} <${elements[index].tag}>`;
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
