import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { ApiError, sendRun } from './api.ts';

/**
 * Sends a document's ready instructions as one run (`POST /api/docs/:id/runs`) and keeps what
 * the page says about it: `sending` while the request is out, `problem` when it was refused.
 * The instructions leave the queue by themselves: the server marks them `sent` in the notes.
 */
export class RunSender implements ReactiveController {
  sending = false;
  /** Why the last send failed, in the server's words; null when it did not. */
  problem: string | null = null;

  constructor(private readonly host: ReactiveControllerHost) {
    host.addController(this);
  }

  /** A request still out when the host leaves the page changes nothing the next visit sees. */
  hostDisconnected(): void {
    this.problem = null;
  }

  /** Resolves true when the server created the run. */
  async send(token: string, docId: string): Promise<boolean> {
    if (this.sending) return false;
    this.sending = true;
    this.problem = null;
    this.host.requestUpdate();
    try {
      await sendRun(token, docId);
      return true;
    } catch (error) {
      this.problem = describe(error);
      return false;
    } finally {
      this.sending = false;
      this.host.requestUpdate();
    }
  }

  clear(): void {
    if (this.problem === null) return;
    this.problem = null;
    this.host.requestUpdate();
  }
}

function describe(error: unknown): string {
  if (!(error instanceof ApiError)) return 'The run could not be sent.';
  if (error.code === 'NOTHING_TO_SEND') return 'Nothing to send: no instruction is ready.';
  if (error.code === 'OFFLINE') return 'Sending needs a connection. The server cannot be reached.';
  return error.message;
}
