import type { AgentApiClient } from '../agent-api-client.ts';
import type { PlannedOp } from '../reference/plan.ts';
import { Rejection } from '../../shared/protocol/rejection.ts';
import { opKinds, type OpKind } from '../../shared/applier/op-kinds.ts';
import { alreadyChanged, alreadyRefused, type RunState } from './run-state.ts';
import type { PageOpKind } from '../../shared/page/page-ops.ts';
import { isPageTool, runPageTool } from './page-tools.ts';
import { LeaseLost } from './lease-lost.ts';
import { maxVariants, minVariants } from '../../shared/applier/ops.ts';
import type { BlockView } from '../../shared/wire/docs.ts';
import { proposeVariants, rewriteVariants } from './variant-tools.ts';

/**
 * The tools the model agent offers a model, in no provider's format: a name, what it does, and
 * its parameters as JSON Schema. Each answers a JSON value: what was read, `{ok: true}`, or
 * `{error: {code, message}}`. Tools that would send an op kind outside the token's `ops` claim
 * are not offered [MODEL3].
 */

export interface ToolDefinition {
  name: ToolName;
  description: string;
  parameters: JsonSchemaObject;
}

interface JsonSchemaObject {
  type: 'object';
  properties: Record<string, { type: 'string'; description: string } | JsonSchemaList>;
  required: string[];
  additionalProperties: false;
}

/** A list of strings (the candidates of propose_variants). */
interface JsonSchemaList {
  type: 'array';
  items: { type: 'string' };
  minItems: number;
  maxItems: number;
  description: string;
}

export type ToolName = 'read_document' | 'read_block' | OpKind | 'rewrite_block' | 'rewrite_variants' | 'refuse' | 'read_page' | PageOpKind;

/**
 * Writes a block anew from its Markdown and a person's instruction, by a model asked without
 * tools [MODEL7]: resolves to the new Markdown. `rewrite_block` gets the block's Markdown from
 * the server, never from the model that calls it. The model agent implements it with the run's
 * provider (agents/model/model-agent.ts); another host may plug in its own (MCP sampling).
 */
export type RegenerateBlock = (request: RegenerateRequest, signal: AbortSignal) => Promise<string>;

export interface RegenerateRequest {
  blockType: string;
  markdown: string;
  instruction: string;
  /** VAR4: which of several alternatives this one is (`index` from 0), when several are asked for. */
  variant?: { index: number; count: number };
}

/**
 * Block types `rewrite_block` refuses (CANNOT_REWRITE): their content is not prose to rewrite
 * (an image's is its address, which a model must not make up, IMG4).
 */
export const unrewritableBlockTypes: ReadonlySet<string> = new Set(['code_block', 'horizontal_rule', 'image']);

export type ToolAnswer = Record<string, unknown>;

export { LeaseLost } from './lease-lost.ts';

const text = (description: string) => ({ type: 'string' as const, description });
const instructionId = text('The id of the instruction this answers.');
const blockId = text('The id of the block, as read_document or read_block shows it.');
const markdown = text('The new text, as Markdown: one or more blocks.');

function schema(properties: JsonSchemaObject['properties']): JsonSchemaObject {
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

const definitions: ToolDefinition[] = [
  {
    name: 'read_document',
    description: 'Read the whole document as it is now: its blocks in document order, each with id, type, Markdown and parentId (the list or quote holding it, null at the top level; a list item is addressed by its own id and its Markdown is its content, without the marker; a table is one block of type table whose Markdown is a GitHub-flavoured Markdown table, its first row the header, a | in a cell written \\|; an image is a block of type image whose Markdown is ![alt text](address): keep its address as it is, an uploaded image\'s address cannot be made up).',
    parameters: schema({}),
  },
  {
    name: 'read_block',
    description: 'Read one block as it is now: id, type and Markdown.',
    parameters: schema({ blockId }),
  },
  {
    name: 'replace_block',
    description: 'Replace a block you have read in this run by new Markdown.',
    parameters: schema({ instructionId, blockId, markdown }),
  },
  {
    name: 'insert_after',
    description: 'Insert new Markdown after a block you have read in this run.',
    parameters: schema({ instructionId, blockId, markdown }),
  },
  {
    name: 'delete_block',
    description: 'Delete a block you have read in this run.',
    parameters: schema({ instructionId, blockId }),
  },
  {
    name: 'rewrite_block',
    description:
      'Rewrite a block you have read in this run, following an instruction in plain words (e.g. "make it shorter"): the block as the document holds it is rewritten for you, and the answer replaces it. Code blocks and horizontal rules cannot be rewritten.',
    parameters: schema({ instructionId, blockId, instruction: text('What to do with the block, in plain words.') }),
  },
  {
    name: 'rewrite_variants',
    description:
      'Answer an instruction whose variantsWanted is more than 1 (it asks for that many alternatives): the block you have read in this run, as the document holds it, is rewritten once per variant following an instruction in plain words, and the person chooses between the answers. Call it once for that instruction; do not also replace the block.',
    parameters: schema({ instructionId, blockId, instruction: text('What to do with the block, in plain words.') }),
  },
  {
    name: 'propose_variants',
    description:
      'Answer an instruction whose variantsWanted is more than 1 with alternatives you write: 2 to 4 candidates of new Markdown for a block you have read in this run; the person chooses between them.',
    parameters: {
      type: 'object',
      properties: {
        instructionId,
        blockId,
        candidates: { type: 'array', items: { type: 'string' }, minItems: minVariants, maxItems: maxVariants, description: 'The alternatives, each the new text of the block as Markdown.' },
      },
      required: ['instructionId', 'blockId', 'candidates'],
      additionalProperties: false,
    },
  },
  {
    name: 'refuse',
    description: 'Decline an instruction, with a reason the person who wrote it will read.',
    parameters: schema({ instructionId, reason: text('Why, in a sentence or two.') }),
  },
];

/** The op kinds a write tool sends as it is. */
type BlockWriteOp = 'replace_block' | 'insert_after' | 'delete_block';

/** The op kind each write tool sends; a tool is offered only when the token allows it. */
const opOfTool: Partial<Record<ToolName, OpKind>> = {
  replace_block: 'replace_block',
  insert_after: 'insert_after',
  delete_block: 'delete_block',
  rewrite_block: 'replace_block',
  rewrite_variants: 'propose_variants',
  propose_variants: 'propose_variants',
};

/** The tools offered to an agent whose token allows `ops` (every op kind when absent). */
export function offeredTools(ops: readonly string[] | undefined): ToolDefinition[] {
  const allowed = new Set<string>(ops ?? opKinds);
  return definitions.filter((tool) => {
    const op = opOfTool[tool.name];
    return op === undefined || allowed.has(op);
  });
}

export interface ToolContext {
  client: AgentApiClient;
  state: RunState;
  tools: readonly ToolDefinition[];
  /** Writes the new text of `rewrite_block`; without it that tool answers CANNOT_REWRITE. */
  regenerate?: RegenerateBlock;
  /** Aborts a tool's own model request (`rewrite_block`) when the run stops. */
  signal?: AbortSignal;
}

/**
 * Runs one tool call. Mistakes of the model (bad arguments, a write before a read, an op the
 * server refuses) come back as `{error}` for the model to act on; a lost lease throws
 * `LeaseLost`, and a failure of the server or the network throws as it is.
 */
export async function runTool(name: string, rawArguments: string, context: ToolContext): Promise<ToolAnswer> {
  const tool = context.tools.find((offered) => offered.name === name);
  if (!tool) return toolError('UNKNOWN_TOOL', `There is no tool "${name}". Use one of: ${context.tools.map((t) => t.name).join(', ')}.`);
  const read = readArguments(rawArguments, tool);
  if (typeof read === 'string') return toolError('BAD_ARGUMENTS', read);
  const { args, lists } = read;
  if (isPageTool(tool.name)) return runPageTool(tool.name, args, context);
  const { client, state } = context;
  switch (tool.name) {
    case 'read_document': {
      const { blocks } = await client.document(state.docId);
      for (const block of blocks) state.remember(block.id, block.hash);
      return { blocks: blocks.map(({ id, parentId, type, markdown }) => ({ id, parentId, type, markdown })) };
    }
    case 'read_block': {
      const { blocks } = await client.document(state.docId);
      const block = blocks.find((candidate) => candidate.id === args.blockId);
      if (!block) return toolError('NO_SUCH_BLOCK', `The document has no block "${args.blockId}" (now). Call read_document to see its blocks.`);
      state.remember(block.id, block.hash);
      return { id: block.id, type: block.type, markdown: block.markdown };
    }
    case 'refuse': {
      if (!state.instructionIds.has(args.instructionId)) return noSuchInstruction(args.instructionId);
      if (args.reason.trim() === '') return toolError('BAD_ARGUMENTS', 'Give a reason.');
      if (state.hasChanged(args.instructionId)) return alreadyChanged(args.instructionId);
      state.refuse(args.instructionId, args.reason.trim().slice(0, 2000));
      return { ok: true };
    }
    case 'rewrite_block':
      return rewrite(args, context);
    case 'rewrite_variants':
      return rewriteVariants(args, context);
    case 'propose_variants':
      return proposeVariants(args, lists.candidates ?? [], context);
    default:
      return write(tool.name as BlockWriteOp, args, context);
  }
}

/**
 * [MODEL7] The trust boundary of `rewrite_block`: the Markdown that is rewritten is the block as
 * the server holds it now, read here, never text the model retyped; the new text goes through
 * the same replace op as `replace_block`, with the hash of what was read here, so READ_FIRST
 * and STALE_BLOCK hold as they do for it.
 */
async function rewrite(args: Record<string, string>, context: ToolContext): Promise<ToolAnswer> {
  const read = await blockToRewrite(args, context);
  if (!read.ok) return read.answer;
  const { block } = read;
  const answer = await (context.regenerate as RegenerateBlock)({ blockType: block.type, markdown: block.markdown, instruction: args.instruction }, context.signal ?? new AbortController().signal);
  const markdown = withoutFence(answer).trim();
  if (markdown === '') return toolError('EMPTY_REWRITE', 'The rewrite came back empty; nothing was changed.');
  return sendOp({ op: 'replace_block', blockId: block.id, markdown, expectHash: block.hash, instructionId: args.instructionId }, context);
}

/**
 * The block a rewrite (rewrite_block, rewrite_variants) works on, as the server holds it now,
 * after the checks the model's mistakes fail: an instruction of the run not refused, the block
 * read in this run and unchanged since, prose, and a model to rewrite with; else the error.
 */
export async function blockToRewrite(args: Record<string, string>, context: ToolContext): Promise<{ ok: true; block: BlockView } | { ok: false; answer: ToolAnswer }> {
  const answer = await rewriteRefusal(args, context);
  return 'hash' in answer ? { ok: true, block: answer as BlockView } : { ok: false, answer };
}

async function rewriteRefusal(args: Record<string, string>, context: ToolContext): Promise<ToolAnswer | BlockView> {
  const { client, state } = context;
  if (!state.instructionIds.has(args.instructionId)) return noSuchInstruction(args.instructionId);
  if (state.isRefused(args.instructionId)) return alreadyRefused(args.instructionId);
  const readHash = state.hashOf(args.blockId);
  if (readHash === undefined) {
    return toolError('READ_FIRST', `Read block "${args.blockId}" (read_block or read_document) in this run before you change it.`);
  }
  if (args.instruction.trim() === '') return toolError('BAD_ARGUMENTS', 'Say what to do with the block in "instruction".');
  const block = (await client.document(state.docId)).blocks.find((candidate) => candidate.id === args.blockId);
  if (!block) return toolError('NO_SUCH_BLOCK', `The document has no block "${args.blockId}" (now). Call read_document to see its blocks.`);
  if (block.hash !== readHash) {
    state.forget(args.blockId);
    return toolError('STALE_BLOCK', `Block "${args.blockId}" changed since you read it: read it again.`);
  }
  if (unrewritableBlockTypes.has(block.type) || !context.regenerate) {
    const why = context.regenerate ? `a ${block.type.replace('_', ' ')} is not prose` : 'this agent has no model to rewrite with';
    return toolError('CANNOT_REWRITE', `Block "${block.id}" cannot be rewritten: ${why}. Use replace_block with the new Markdown, or refuse the instruction.`);
  }
  return block;
}

/**
 * An answer wrapped whole in one fence marked as Markdown (or not marked), as models tend to
 * write, without the fence; a fence naming another language is a code block the person asked for.
 */
export function withoutFence(text: string): string {
  const fenced = /^\s*```(?:markdown|md)?[ \t]*\n([\s\S]*?)\n```\s*$/i.exec(text);
  return fenced ? fenced[1] : text;
}

async function write(kind: BlockWriteOp, args: Record<string, string>, { client, state }: ToolContext): Promise<ToolAnswer> {
  if (state.isRefused(args.instructionId)) return alreadyRefused(args.instructionId);
  const expectHash = state.hashOf(args.blockId);
  if (expectHash === undefined) {
    return toolError('READ_FIRST', `Read block "${args.blockId}" (read_block or read_document) in this run before you change it.`);
  }
  const op: PlannedOp =
    kind === 'replace_block'
      ? { op: kind, blockId: args.blockId, markdown: args.markdown, expectHash, instructionId: args.instructionId }
      : kind === 'insert_after'
        ? { op: kind, blockId: args.blockId, markdown: args.markdown, instructionId: args.instructionId }
        : { op: kind, blockId: args.blockId, expectHash, instructionId: args.instructionId };
  return sendOp(op, { client, state });
}

/** Sends one op as its own batch; the server's refusal comes back as the model's `{error}`. */
export async function sendOp(op: PlannedOp, { client, state }: Pick<ToolContext, 'client' | 'state'>): Promise<ToolAnswer> {
  try {
    await client.sendOps(state.runId, state.nextBatchKey(), [op]);
  } catch (failure) {
    if (!(failure instanceof Rejection)) throw failure;
    if (failure.code === 'NOT_CLAIMED') throw new LeaseLost(failure.message);
    if (failure.code === 'STALE_BLOCK') {
      state.forget(op.blockId);
      return toolError('STALE_BLOCK', `Block "${op.blockId}" changed since you read it: read it again.`);
    }
    if (failure.status >= 500) throw failure;
    return toolError(failure.code, failure.message);
  }
  state.markChanged(op.instructionId);
  // A replaced or deleted block is not what was read any more; the block an insert follows is.
  if (op.op !== 'insert_after') state.forget(op.blockId);
  return { ok: true };
}

/** The arguments by name (strings; lists of strings apart), or what is wrong with them. */
function readArguments(raw: string, tool: ToolDefinition): { args: Record<string, string>; lists: Record<string, string[]> } | string {
  let value: unknown;
  try {
    value = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return 'The arguments are not JSON.';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'The arguments must be a JSON object.';
  const args: Record<string, string> = {};
  const lists: Record<string, string[]> = {};
  for (const name of tool.parameters.required) {
    const given = (value as Record<string, unknown>)[name];
    if (tool.parameters.properties[name]?.type === 'array') {
      if (!Array.isArray(given) || !given.every((entry) => typeof entry === 'string')) return `"${name}" must be a list of strings.`;
      lists[name] = given as string[];
      continue;
    }
    if (typeof given !== 'string') return `"${name}" must be a string.`;
    args[name] = given;
  }
  return { args, lists };
}

export function noSuchInstruction(id: string): ToolAnswer {
  return toolError('NO_SUCH_INSTRUCTION', `"${id}" is not an instruction of this run.`);
}

export function toolError(code: string, message: string): ToolAnswer {
  return { error: { code, message } };
}
