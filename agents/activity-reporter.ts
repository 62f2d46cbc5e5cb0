import type { AgentApiClient } from './agent-api-client.ts';
import { describeError } from './peer-loop.ts';
import { Rejection } from '../shared/protocol/rejection.ts';
import { maxActivityLineLength, type ActivityBody } from '../shared/wire/activity.ts';

/**
 * Tells the server what an agent does on a run it holds (MODEL8): lines, tokens used, the model.
 * Reports go out one after the other, in order; each is best effort: a failure is logged and
 * the work goes on (a lost claim is the heartbeat's to notice).
 */
export class ActivityReporter {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: AgentApiClient,
    private readonly runId: string,
    private readonly log: (message: string) => void = () => {},
  ) {}

  line(text: string): void {
    const line = text.replace(/\s+/g, ' ').trim();
    if (line !== '') this.send({ line: line.length > maxActivityLineLength ? `${line.slice(0, maxActivityLineLength - 1)}…` : line });
  }

  send(body: ActivityBody): void {
    this.chain = this.chain.then(() =>
      this.client.activity(this.runId, body).then(
        () => {},
        (error) => {
          if (!(error instanceof Rejection && error.code === 'NOT_CLAIMED')) this.log(`activity of ${this.runId}: ${describeError(error)}`);
        },
      ),
    );
  }

  /** Resolves once every report so far was answered. */
  flush(): Promise<void> {
    return this.chain;
  }
}
