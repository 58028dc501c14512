// A reviewer's choices, without the editor API (unit-tested): what an abandoned approach cost,
// the kinds of memory, and the lines a selection covers.

export interface EffortItem {
  label: string;
  description?: string;
  effort?: number;
}

const EFFORT_WORDS = ['a quick try', 'an afternoon', 'a day or two', 'days (memories naming it leave recall)',
  'a week or more (memories naming it leave recall)'];

/** The efforts 1–5 as quick-pick items; `skip` adds a first item that gives none. */
export function effortItems(skip: boolean): EffortItem[] {
  const efforts = EFFORT_WORDS.map((description, i) => ({ label: `${i + 1}`, description, effort: i + 1 }));
  return skip ? [{ label: 'Skip' }, ...efforts] : efforts;
}

/** `cenotaph.remember`'s kinds (commands.schema.json; a unit test checks they agree). */
export const KINDS = ['note', 'experience', 'decision', 'preference', 'fact'] as const;

/** The 1-based lines a selection covers (0-based positions in); one that ends at the start of a
 * line ends with the line before it. */
export function selectionLines(startLine: number, endLine: number, endCharacter: number): { start: number; end: number } {
  const last = endCharacter === 0 && endLine > startLine ? endLine - 1 : endLine;
  return { start: startLine + 1, end: last + 1 };
}
