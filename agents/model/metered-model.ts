import type { ModelProvider } from './tool-loop.ts';
import type { RunLimits } from './model-settings.ts';
import { withRetries } from './model-retry.ts';
import { addUsage, noUsage, type TokenUsage } from '../../shared/wire/activity.ts';

/** The run spent its tokens (`TANDEM_MAX_TOKENS_PER_RUN`): it fails, saying what to change. */
export class TokenBudgetSpent extends Error {}

/**
 * The model of one run, as the tool loop and `rewrite_block` both call it: each call is retried
 * on 429 and 5xx (MODEL9), its usage is added up and told to `onUsage`, and once the run's input
 * plus output tokens reach `maxTokensPerRun` the call that spent them and any later one throw
 * TokenBudgetSpent (MODEL9).
 */
export function meteredModel(
  provider: ModelProvider,
  limits: Pick<RunLimits, 'maxTokensPerRun' | 'retries' | 'retryBaseDelayMs' | 'retryMaxDelayMs'>,
  events: { onUsage?: (usage: TokenUsage) => void; onRetry?: (line: string) => void } = {},
): ModelProvider {
  let total = noUsage;
  const budget = limits.maxTokensPerRun;
  const spentOut = () =>
    new TokenBudgetSpent(
      `The run used ${tokensOf(total)} tokens, its budget is ${budget} (TANDEM_MAX_TOKENS_PER_RUN); its changes are taken back. ` +
        'Send fewer instructions at a time, or raise TANDEM_MAX_TOKENS_PER_RUN.',
    );
  const policy = { retries: limits.retries, baseDelayMs: limits.retryBaseDelayMs, maxDelayMs: limits.retryMaxDelayMs };
  return {
    where: provider.where,
    model: provider.model,
    async complete(request, signal) {
      if (tokensOf(total) >= budget) throw spentOut();
      const turn = await withRetries(() => provider.complete(request, signal), policy, signal, (failure, waitMs, attempt) =>
        events.onRetry?.(`${failure.status} from the model server: trying again in ${seconds(waitMs)} (retry ${attempt} of ${policy.retries})`),
      );
      if (turn.usage) {
        total = addUsage(total, turn.usage);
        events.onUsage?.(turn.usage);
      }
      if (tokensOf(total) > budget) throw spentOut();
      return turn;
    },
  };
}

function tokensOf(usage: TokenUsage): number {
  return usage.inputTokens + usage.outputTokens;
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}
