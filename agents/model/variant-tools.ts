import type { PlannedOp } from '../reference/plan.ts';
import { maxVariants, minVariants } from '../../shared/applier/ops.ts';
import { alreadyRefused } from './run-state.ts';
import { blockToRewrite, noSuchInstruction, sendOp, toolError, withoutFence, type RegenerateBlock, type ToolAnswer, type ToolContext } from './tools.ts';

/**
 * VAR4: the tools that answer an instruction asking for several answers with one
 * `propose_variants`. `rewrite_variants` keeps `rewrite_block`'s trust boundary [MODEL7]: the
 * block as the server holds it is rewritten once per variant wanted, by requests without tools
 * made in parallel (each through the run's metered model, so every one counts against the run's
 * token budget); `propose_variants` sends candidates the model wrote itself, as `replace_block`
 * sends its Markdown.
 */

/** `rewrite_variants`: N generations of the block from the server's text, then one propose_variants. */
export async function rewriteVariants(args: Record<string, string>, context: ToolContext): Promise<ToolAnswer> {
  const count = context.state.variantsOf(args.instructionId);
  if (context.state.instructionIds.has(args.instructionId) && count < minVariants) return oneAnswer(args.instructionId);
  const read = await blockToRewrite(args, context);
  if (!read.ok) return read.answer;
  const { block } = read;
  const regenerate = context.regenerate as RegenerateBlock;
  const signal = context.signal ?? new AbortController().signal;
  const answers = await Promise.all(
    Array.from({ length: count }, (_, index) =>
      regenerate({ blockType: block.type, markdown: block.markdown, instruction: args.instruction, variant: { index, count } }, signal),
    ),
  );
  const candidates = answers.map((answer) => withoutFence(answer).trim());
  const empty = candidates.findIndex((candidate) => candidate === '');
  if (empty >= 0) return toolError('EMPTY_REWRITE', `Variant ${empty + 1} came back empty; nothing was changed.`);
  return sendOp({ op: 'propose_variants', blockId: block.id, candidates, expectHash: block.hash, instructionId: args.instructionId }, context);
}

/** `propose_variants`: the candidates the model wrote, for a block it read in this run. */
export async function proposeVariants(args: Record<string, string>, candidates: readonly string[], context: ToolContext): Promise<ToolAnswer> {
  const { state } = context;
  if (!state.instructionIds.has(args.instructionId)) return noSuchInstruction(args.instructionId);
  if (state.isRefused(args.instructionId)) return alreadyRefused(args.instructionId);
  if (state.variantsOf(args.instructionId) < minVariants) return oneAnswer(args.instructionId);
  if (candidates.length < minVariants || candidates.length > maxVariants) {
    return toolError('BAD_ARGUMENTS', `Give ${minVariants} to ${maxVariants} candidates; ${candidates.length} were given.`);
  }
  const expectHash = state.hashOf(args.blockId);
  if (expectHash === undefined) {
    return toolError('READ_FIRST', `Read block "${args.blockId}" (read_block or read_document) in this run before you change it.`);
  }
  const op: PlannedOp = { op: 'propose_variants', blockId: args.blockId, candidates: [...candidates], expectHash, instructionId: args.instructionId };
  return sendOp(op, context);
}

function oneAnswer(instructionId: string): ToolAnswer {
  return toolError('ONE_ANSWER', `Instruction "${instructionId}" asks for one answer: use replace_block or rewrite_block.`);
}
