import type { Annotation, Instruction } from '../shared/notes/annotations.ts';

/** The instructions the next run would carry: queued and not resolved, oldest first. */
export function readyInstructions(annotations: readonly Annotation[]): Instruction[] {
  return annotations.filter(
    (annotation): annotation is Instruction =>
      annotation.kind === 'instruction' && annotation.state === 'queued' && !annotation.resolved,
  );
}

/** `N instructions ready`, singular for one (the queue bar's text, docs/api.md). */
export function readyText(count: number): string {
  return `${count} ${count === 1 ? 'instruction' : 'instructions'} ready`;
}

/** `Send N to agent` (the queue bar's button, docs/api.md). */
export function sendLabel(count: number): string {
  return `Send ${count} to agent`;
}
