import type { AgentApiClient } from '../agent-api-client.ts';
import { LeaseLost, runTool, type ToolAnswer, type ToolContext, type ToolDefinition, type RegenerateBlock } from '../model/tools.ts';
import { Rejection } from '../../shared/protocol/rejection.ts';
import { describeError } from '../peer-loop.ts';
import type { HeldRuns } from './held-runs.ts';
import { maxAsideAnswerLength } from '../../shared/wire/asides.ts';

/**
 * The tools of `tandem mcp` [MCP2]: the run lifecycle (`list_runs`, `claim_run`,
 * `complete_run`, `fail_run`) around the model agent's own tools (agents/model/tools.ts, the
 * same definitions and the same `runTool`), each of those taking the `runId` it works on, and
 * the asides of a claimed run (`read_asides`, `answer_aside`) [MCP7].
 */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, object>; required: string[]; additionalProperties: false };
}

const runId = { type: 'string', description: 'The id of a run this server claimed (claim_run).' };

const lifecycleBefore: McpTool[] = [
  {
    name: 'list_runs',
    description:
      'List the queued runs: each with its runId, docId and instructions (instructionId, target blockId, text). With waitSeconds (at most 30), wait for one to be queued.',
    inputSchema: {
      type: 'object',
      properties: { waitSeconds: { type: 'number', minimum: 0, maximum: 30, description: 'How long to wait for a queued run, in seconds.' } },
      required: [],
      additionalProperties: false,
    },
  },
  {
    name: 'claim_run',
    description:
      'Claim a queued run: it is yours until you complete or fail it (this server keeps its lease alive meanwhile). Then read the document before you change it. An item whose variantsWanted is more than 1 asks for that many alternatives: answer it with propose_variants (or rewrite_variants).',
    inputSchema: { type: 'object', properties: { runId }, required: ['runId'], additionalProperties: false },
  },
];

const lifecycleAfter: McpTool[] = [
  {
    name: 'read_asides',
    description:
      'Read what people said to you about a run you claimed since you last asked: questions (answer them with answer_aside) and steers (corrections to take into account). With waitSeconds (at most 30), wait for one.',
    inputSchema: {
      type: 'object',
      properties: { runId, waitSeconds: { type: 'number', minimum: 0, maximum: 30, description: 'How long to wait for an aside, in seconds.' } },
      required: ['runId'],
      additionalProperties: false,
    },
  },
  {
    name: 'answer_aside',
    description: 'Answer a question a person asked about a run you claimed (read_asides). The answer goes to the person; it changes neither the run nor the document.',
    inputSchema: {
      type: 'object',
      properties: {
        runId,
        asideId: { type: 'string', description: 'The id of the question, as read_asides shows it.' },
        answer: { type: 'string', description: 'Your answer, for the person who asked.' },
      },
      required: ['runId', 'asideId', 'answer'],
      additionalProperties: false,
    },
  },
  {
    name: 'complete_run',
    description: 'Finish a run you claimed: it goes to the people for review, with your summary and the instructions you refused.',
    inputSchema: {
      type: 'object',
      properties: { runId, summary: { type: 'string', description: 'What you did, in a few sentences, for the reviewers.' } },
      required: ['runId'],
      additionalProperties: false,
    },
  },
  {
    name: 'fail_run',
    description: 'Give up a run you claimed, with a message the people will read; the changes you made are discarded.',
    inputSchema: {
      type: 'object',
      properties: { runId, message: { type: 'string', description: 'Why the run failed.' } },
      required: ['runId', 'message'],
      additionalProperties: false,
    },
  },
];

/** The MCP form of a model tool: the same schema with `runId` first. */
function withRunId(tool: ToolDefinition): McpTool {
  const { properties, required } = tool.parameters;
  return {
    name: tool.name,
    description: `${tool.description} Give the runId of the claimed run.`,
    inputSchema: { type: 'object', properties: { runId, ...properties }, required: ['runId', ...required], additionalProperties: false },
  };
}

/** Every tool, in order: `modelTools` are those offered for the token's ops (and sampling). */
export function mcpTools(modelTools: readonly ToolDefinition[]): McpTool[] {
  return [...lifecycleBefore, ...modelTools.map(withRunId), ...lifecycleAfter];
}

const defaultSummary = 'The agent finished without a summary.';

/**
 * Answers one tool call [MCP3]. Every failure (an unknown run, a refusal of the server, a model tool's
 * error, a server that cannot be reached) is an answer `{error: {code, message}}` for the
 * client's model to act on.
 */
export async function callMcpTool(
  name: string,
  args: Record<string, unknown>,
  deps: { client: AgentApiClient; held: HeldRuns; modelTools: readonly ToolDefinition[]; regenerate?: RegenerateBlock },
): Promise<ToolAnswer> {
  const { client, held } = deps;
  try {
    switch (name) {
      case 'list_runs': {
        const wait = typeof args.waitSeconds === 'number' ? args.waitSeconds : 0;
        return { runs: await client.queuedRuns(wait) };
      }
      case 'claim_run': {
        const id = stringArg(args, 'runId');
        const claimed = await client.claim(id);
        held.hold(claimed);
        const { runId: claimedId, docId, items, lease } = claimed;
        return { runId: claimedId, docId, items, lease };
      }
      case 'complete_run': {
        const run = held.get(stringArg(args, 'runId'));
        if (!run) return notHeld(held, stringArg(args, 'runId'));
        const summary = typeof args.summary === 'string' && args.summary.trim() !== '' ? args.summary.trim() : defaultSummary;
        held.release(run.claimed.runId);
        return await client.complete(run.claimed.runId, summary.slice(0, 10_000), run.state.refusals());
      }
      case 'read_asides': {
        const id = stringArg(args, 'runId');
        if (!held.get(id)) return notHeld(held, id);
        const wait = typeof args.waitSeconds === 'number' ? args.waitSeconds : 0;
        return { asides: await client.asides(id, wait) };
      }
      case 'answer_aside': {
        const id = stringArg(args, 'runId');
        if (!held.get(id)) return notHeld(held, id);
        const answer = stringArg(args, 'answer').slice(0, maxAsideAnswerLength);
        return await client.answerAside(id, stringArg(args, 'asideId'), { answer, done: true, route: 'side' });
      }
      case 'fail_run': {
        const run = held.get(stringArg(args, 'runId'));
        if (!run) return notHeld(held, stringArg(args, 'runId'));
        held.release(run.claimed.runId);
        return await client.fail(run.claimed.runId, stringArg(args, 'message').slice(0, 2000) || 'The agent gave up.');
      }
    }
    const tool = deps.modelTools.find((offered) => offered.name === name);
    if (!tool) return error('UNKNOWN_TOOL', `There is no tool "${name}".`);
    const id = stringArg(args, 'runId');
    const run = held.get(id);
    if (!run) return notHeld(held, id);
    const { runId: _runId, ...toolArgs } = args;
    // `regenerate` is the capability rewrite_block calls (MCP sampling, ./sampling.ts).
    const context: ToolContext = { client, state: run.state, tools: deps.modelTools, ...(deps.regenerate && { regenerate: deps.regenerate }) };
    try {
      return await runTool(name, JSON.stringify(toolArgs), context);
    } catch (failure) {
      if (!(failure instanceof LeaseLost)) throw failure;
      held.release(id);
      return error('LEASE_LOST', failure.message);
    }
  } catch (failure) {
    if (failure instanceof Rejection) return error(failure.code, failure.message);
    return error('SERVER_UNREACHABLE', `The Tandem server could not be reached: ${describeError(failure)}`);
  }
}

function stringArg(args: Record<string, unknown>, name: string): string {
  const value = args[name];
  return typeof value === 'string' ? value : '';
}

function notHeld(held: HeldRuns, runId: string): ToolAnswer {
  const lost = held.lostReason(runId);
  if (lost) return error('LEASE_LOST', `The claim on run "${runId}" is gone: ${lost}`);
  return error('NOT_CLAIMED', `Run "${runId}" is not claimed by this agent: claim it first (claim_run).`);
}

function error(code: string, message: string): ToolAnswer {
  return { error: { code, message } };
}
