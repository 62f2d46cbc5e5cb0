/**
 * ASIDE2: where a person's aside goes. A text whose last character is `?`, `？` or `؟` is a
 * question, answered on the side without touching the run; anything else steers the run. The
 * last character is read after trailing space, closing brackets and quotes (`?)`, `?"`, `?」`),
 * and after any fenced code block (```` ``` ```` or `~~~`, closed or not): a `?` inside code is
 * code, not a question. The server routes with this function and the app labels its box with it,
 * so both always agree.
 */

export type AsideRoute = 'side' | 'agent';

const questionMarks = new Set(['?', '？', '؟']);

/** Closing brackets and quotes that may follow a question mark, ASCII and typographic, CJK included. */
const closers = new Set([...')]}>"\'`’”»›）］｝〉》」』】〕〗〙〛＂＇']);

/** A fence line opens or closes a fenced code block (CommonMark: three or more backticks or tildes). */
const fenceLine = /^ {0,3}(`{3,}|~{3,})/;

/** The text with every fenced code block left out (an unclosed fence runs to the end). */
export function withoutCodeFences(text: string): string {
  const kept: string[] = [];
  let fence: string | null = null;
  for (const line of text.split(/\r?\n/)) {
    const match = fenceLine.exec(line);
    if (fence === null) {
      if (match) fence = match[1];
      else kept.push(line);
    } else if (match && match[1][0] === fence[0] && match[1].length >= fence.length && line.trim() === match[1]) {
      fence = null;
    }
  }
  return kept.join('\n');
}

/** Whether `text` asks a question (see above); an empty text does not. */
export function isQuestion(text: string): boolean {
  const chars = [...withoutCodeFences(text)];
  let end = chars.length - 1;
  while (end >= 0 && (/\s/.test(chars[end]) || closers.has(chars[end]))) end--;
  return end >= 0 && questionMarks.has(chars[end]);
}

/** `side` for a question, `agent` (a steer) for anything else or when the person says steer. */
export function asideRoute(text: string, steer = false): AsideRoute {
  return !steer && isQuestion(text) ? 'side' : 'agent';
}
