import type { ReactiveController, ReactiveControllerHost } from 'lit';

/**
 * The app's code that loads on demand (each chunk, a dynamic import, when first needed). A chunk
 * that fails to arrive — the server stopped while it was on its way, before the service worker
 * held it — cannot be fetched again by the same page: the browser keeps the failed import. The
 * failure is therefore told once, as `codeMissing`, for the page to offer a reload
 * (client/tandem-update-notice.ts); the load's promise then stays pending, so that nothing waits
 * on half-loaded code and no failure goes unhandled.
 */
let codeMissing = false;
const listeners = new Set<() => void>();

/** Whether some code this page asked for did not arrive. */
export function isCodeMissing(): boolean {
  return codeMissing;
}

/** A function that starts `load` on its first call and returns the same promise to every call. */
export function onDemand<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | null = null;
  return () => (loading ??= load().catch((error: unknown) => missing<T>(error)));
}

function missing<T>(error: unknown): Promise<T> {
  console.warn('Part of Tandem’s code did not load; reloading the page loads it.', error);
  if (!codeMissing) {
    codeMissing = true;
    for (const listener of listeners) listener();
  }
  return new Promise<T>(() => {});
}

/** Renders its host again when some code turns out missing. */
export class CodeMissingController implements ReactiveController {
  private readonly changed = () => this.host.requestUpdate();

  constructor(private readonly host: ReactiveControllerHost) {
    host.addController(this);
  }

  get missing(): boolean {
    return codeMissing;
  }

  hostConnected(): void {
    listeners.add(this.changed);
  }

  hostDisconnected(): void {
    listeners.delete(this.changed);
  }
}
