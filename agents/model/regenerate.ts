import type { ModelProvider } from './tool-loop.ts';
import type { RegenerateBlock } from './tools.ts';
import { rewriteMessage, rewriteSystemPrompt } from './prompt.ts';

/**
 * `rewrite_block`'s generation for the model agent [MODEL7]: one request to the run's model
 * without tools, carrying the block's Markdown (as the tool read it from the server) and the
 * instruction; the answer's text is the new Markdown.
 */
export function regenerateWith(model: ModelProvider): RegenerateBlock {
  return async (request, signal) => {
    const turn = await model.complete({ system: rewriteSystemPrompt(), messages: [{ role: 'user', content: rewriteMessage(request) }], tools: [] }, signal);
    return turn.content;
  };
}
