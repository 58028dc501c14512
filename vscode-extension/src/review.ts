// A reviewer's choices, without the editor API (unit-tested): what an abandoned approach cost,
// the kinds of memory, the lines a selection covers, and which candidates a bulk decision takes.

export interface EffortItem {
  label: string;
  description?: string;
  effort?: number;
}

const EFFORT_WORDS = ['a quick try', 'an afternoon', 'a day or two', 'days (memories naming it leave recall)',
  'a week or more (memories naming it leave recall)'];

/** The quick pick of efforts: typed words find the item that shows them, not only its number. */
export const EFFORT_PICK = { matchOnDescription: true } as const;

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

/** The ways to choose candidates, each with the question that asks for its value. */
export const SELECTORS = [
  { label: 'By number', key: 'proposalIds', prompt: 'Candidate numbers, separated by spaces (e.g. 13 19 11)' },
  { label: 'By class', key: 'classes', prompt: 'Classes, separated by spaces: dev types backport build subproject moved-out plain' },
  { label: 'By path', key: 'path', prompt: 'A glob over the files of their evidence (e.g. docs/**)' },
  { label: 'By commit', key: 'commit', prompt: 'The commit that removed them (a sha or its first digits)' },
  { label: 'Below a confidence', key: 'below', prompt: 'A confidence between 0 and 1 (e.g. 0.5)' },
] as const;

export type SelectorKey = typeof SELECTORS[number]['key'];

/** The command's selection from what the person typed, or why it is not one (nothing is sent). */
export function selection(key: SelectorKey, text: string): Record<string, unknown> | string {
  const words = text.trim().split(/[\s,]+/).filter(Boolean);
  if (!words.length) return 'Type a value.';
  if (key === 'proposalIds') {
    const bad = words.find((w) => !/^\d+$/.test(w) || Number(w) < 1);
    return bad ? `${bad} is not a candidate number.` : { proposalIds: words.map(Number) };
  }
  if (key === 'classes') return { classes: words };
  if (key === 'below') {
    const value = Number(words[0]);
    return words.length === 1 && value >= 0 && value <= 1 ? { below: value } : 'A number between 0 and 1.';
  }
  if (key === 'commit') return /^[0-9a-fA-F]{4,40}$/.test(words[0]) && words.length === 1 ? { commit: words[0] } : 'A sha: 4 to 40 hex digits.';
  return { path: text.trim() };
}
