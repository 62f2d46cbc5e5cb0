import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { Task, TaskStatus } from '@lit/task';
import { ApiError, sendRun } from './api.ts';

/**
 * Sends a document's ready instructions as one run (`POST /api/docs/:id/runs`) and keeps what
 * the page says about it: `sending` while the request is out, `problem` when it was refused.
 * The instructions leave the queue by themselves: the server marks them `sent` in the notes.
 */
export class RunSender implements ReactiveController {
  private readonly task: Task<readonly [string, string], unknown>;
  /** The last failure has been put aside (the dialog closed or opened again, or the host left after it came). */
  private dismissed = false;

  constructor(private readonly host: ReactiveControllerHost) {
    host.addController(this);
    this.task = new Task(host, {
      autoRun: false,
      task: ([token, docId]: readonly [string, string]) => sendRun(token, docId),
      onError: () => (this.dismissed = false),
    });
  }

  get sending(): boolean {
    return this.task.status === TaskStatus.PENDING;
  }

  /** Why the last send failed, in the server's words; null when it did not. */
  get problem(): string | null {
    return this.task.status === TaskStatus.ERROR && !this.dismissed ? describe(this.task.error) : null;
  }

  /** A request still out when the host leaves the page changes nothing the next visit sees. */
  hostDisconnected(): void {
    this.dismissed = true;
  }

  /** Resolves true when the server created the run. */
  async send(token: string, docId: string): Promise<boolean> {
    if (this.sending) return false;
    this.dismissed = false;
    await this.task.run([token, docId]);
    return this.task.status === TaskStatus.COMPLETE;
  }

  clear(): void {
    if (this.problem === null) return;
    this.dismissed = true;
    this.host.requestUpdate();
  }
}

function describe(error: unknown): string {
  if (!(error instanceof ApiError)) return 'The run could not be sent.';
  if (error.code === 'NOTHING_TO_SEND') return 'Nothing to send: no instruction is ready.';
  if (error.code === 'OFFLINE') return 'Sending needs a connection. The server cannot be reached.';
  return error.message;
}
