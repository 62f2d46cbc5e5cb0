import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RegenerateBlock } from '../model/tools.ts';


/** Whether the MCP client declared the sampling capability (MCP6): only then is `rewrite_block` offered. */
export function clientCanSample(server: Server): boolean {
  return server.getClientCapabilities()?.sampling !== undefined;
}

const maxTokens = 4096;

/**
 * `RegenerateBlock` over MCP sampling (MCP6): one `sampling/createMessage` request to the
 * client, without tools, whose message carries the block's Markdown and the instruction; the
 * text of the client's answer is the new block. An answer that is not text is an error.
 */
export function samplingRegenerator(server: Server): RegenerateBlock {
  return async ({ blockType, markdown, instruction, variant }, signal) => {
    // VAR4: each of several alternatives asked for at once is told which it is.
    const which = variant ? `\n\nThis is alternative ${variant.index + 1} of ${variant.count} the person will choose between: make it a distinct take.` : '';
    const result = await server.createMessage(
      {
        systemPrompt: 'You rewrite one block of a document. Answer with the new Markdown of the block only: no preamble, no code fence around it.',
        messages: [
          {
            role: 'user',
            content: { type: 'text', text: `Instruction: ${instruction}${which}\n\nThe ${blockType} block, as Markdown:\n\n${markdown}` },
          },
        ],
        maxTokens,
      },
      { signal },
    );
    if (result.content.type !== 'text') throw new Error(`The client answered the rewrite with ${result.content.type}, not text.`);
    return result.content.text;
  };
}
