// Commands whose server verb records a reason (shared_schema/commands.schema.json: "When absent the
// server asks the user"). The client asks first, with a free-text input box, so that the reason is
// the person's own words rather than one of the server's canned choices.

export interface ReasonPrompt {
  prompt: string;
  placeHolder: string;
  /** Text to start from: a candidate's drafted reason, to edit. */
  value?: string;
}

type Arg = Record<string, unknown>;

const PROMPTS: Record<string, (arg: Arg) => ReasonPrompt | undefined> = {
  'cenotaph.silence': (a) => ({
    prompt: `Why silence '${a.name}' ${a.scope === 'everywhere' ? 'everywhere' : 'in this project'}?`,
    placeHolder: 'e.g. It is intended here',
  }),
  'cenotaph.liftSilence': (a) => ({
    prompt: `Why lift the silence of '${a.name}' ${a.project === '' ? 'everywhere' : 'in this project'}?`,
    placeHolder: 'e.g. We want to be warned again',
  }),
  'cenotaph.reinstate': (a) => ({ prompt: `Why reinstate '${a.name}'?`, placeHolder: 'e.g. It works now: fixed in 2.0' }),
  'cenotaph.markWrong': (a) => ({
    prompt: `What is wrong with the graveyard record #${a.approachId}?`,
    placeHolder: 'e.g. It was never abandoned',
  }),
  'cenotaph.abandon': (a) => ({ prompt: `Why was '${a.name}' abandoned?`, placeHolder: 'e.g. Crashes on Alpine (musl)' }),
  'cenotaph.resolveContradiction': (a) => ({
    prompt: `Why resolve contradiction #${a.contradictionId} as "${KEEP_WORDS[String(a.keep)] ?? a.keep}"?`,
    placeHolder: 'e.g. Checked by hand',
  }),
  'cenotaph.dismissContradiction': (a) => ({
    prompt: `Why is #${a.contradictionId} not a contradiction?`,
    placeHolder: 'e.g. They are about different services',
  }),
  'cenotaph.setTrust': (a) => ({ prompt: `Why is memory #${a.memoryId} ${a.trust}?`, placeHolder: 'e.g. Checked against the docs' }),
  'cenotaph.archive': (a) => ({ prompt: `Why archive memory #${a.memoryId}?`, placeHolder: 'e.g. No longer relevant' }),
  'cenotaph.reinstateMemory': (a) => ({ prompt: `Why bring memory #${a.memoryId} back?`, placeHolder: 'e.g. Relevant again' }),
  'cenotaph.retireAnchored': (a) => ({ prompt: `Why does memory #${a.memoryId} no longer hold?`, placeHolder: 'e.g. Its code changed' }),
  'cenotaph.rejectProposal': (a) => ({ prompt: `Why reject proposal #${a.proposalId}?`, placeHolder: 'e.g. Not wanted' }),
  // An acceptance keeps each candidate's drafted reason, and a preview decides nothing: only a rejection asks.
  'cenotaph.decideCandidates': (a) => (a.decision === 'reject' && !a.preview ? {
    prompt: `Why reject these ${Array.isArray(a.proposalIds) ? a.proposalIds.length : ''} candidates?`,
    placeHolder: 'e.g. Build-image packages, not choices',
  } : undefined),
  'cenotaph.acceptCandidate': (a) => ({
    prompt: `Why was candidate #${a.proposalId} abandoned? (the graveyard's reason; the drafted one is filled in)`,
    placeHolder: 'e.g. Too slow for our data sizes',
    value: typeof a.draft === 'string' ? a.draft : undefined,
  }),
};

const KEEP_WORDS: Record<string, string> = {
  a: 'keep the first', b: 'keep the second', both: 'both were true', neither: 'neither is true',
};

/** The commands that take a reason the client must ask for. */
export const REASON_COMMANDS: readonly string[] = Object.keys(PROMPTS);

/** What to ask, or undefined when the command needs no reason or already has one. */
export function reasonPrompt(command: string, arg: unknown): ReasonPrompt | undefined {
  const prompt = PROMPTS[command];
  if (!prompt || typeof arg !== 'object' || arg === null) return undefined;
  const given = (arg as Arg).reason;
  if (typeof given === 'string' && given.trim()) return undefined;
  return prompt(arg as Arg);
}

export function withReason(arg: unknown, reason: string): Arg {
  return { ...(arg as Arg), reason: reason.trim() };
}
