// The ledger (shared_schema/ledger.schema.json) is Markdown for people; the tree view reads its
// entries back. Entry lines start as the server's code actions expect them
// (`- approach #1 …`, `### contradiction #2 …`), which is all this parser relies on; the rest of a
// line is picked apart where it has the expected shape and shown whole where it does not.

export interface LedgerCounts {
  graveyard: number;
  contradictions: number;
  deprioritised: number;
  proposals: number;
  candidates: number;
  silences: number;
}

export interface LedgerResult {
  uri: string;
  project: string;
  text: string;
  seq: number;
  counts: LedgerCounts;
}

export interface ApproachEntry {
  kind: 'approach';
  id: number;
  line: number;
  displayName: string;
  ecosystem?: string;
  /** The graveyard it is in: the ledger's project, or "" (everywhere). */
  project: string;
  where: string;
  effort?: number;
  date?: string;
  actor?: string;
  reason: string;
  /** Shared in the repository's `.cenotaph/` folder: `mine` (the person's own entry, its shared
   * copy a mark on it) or `team` (only the repository's file, shared by `sharedBy`). */
  shared?: 'mine' | 'team';
  /** The shared file, relative to the repository (known for `mine`). */
  sharedPath?: string;
  sharedBy?: string;
}

export interface ContradictionEntry {
  kind: 'contradiction';
  id: number;
  line: number;
  memoryA?: number;
  memoryB?: number;
  contentA: string;
  contentB: string;
  explanation: string;
  header: string;
}

export interface MemoryEntry {
  kind: 'memory';
  id: number;
  line: number;
  summary: string;
  content: string;
  why?: string;
  reinstateWhen?: string;
}

export interface ProposalEntry {
  kind: 'proposal';
  id: number;
  line: number;
  summary: string;
  reason: string;
}

/** A candidate from history: an `abandon` proposal mined from the repository's past. */
export interface CandidateEntry {
  kind: 'candidate';
  id: number;
  line: number;
  name: string;
  ecosystem?: string;
  confidence?: number;
  replacement?: string;
  /** The drafted reason: what the graveyard will say unless the person edits it. */
  reason: string;
  /** The first piece of evidence (the indented line below the entry). */
  evidence: string;
}

/** A silence in force in the project (a suppression: its own or a global one). */
export interface SilenceEntry {
  kind: 'silence';
  id: number;
  line: number;
  name: string;
  /** `diagnostic`: not flagged in editors; `recall`: kept out of recall. */
  silenced: 'diagnostic' | 'recall';
  /** The project it holds in: the ledger's project, or "" (everywhere). */
  project: string;
  date?: string;
  actor?: string;
  reason: string;
}

export type LedgerEntry = ApproachEntry | ContradictionEntry | MemoryEntry | ProposalEntry | CandidateEntry | SilenceEntry;

export interface ParsedLedger {
  graveyard: ApproachEntry[];
  contradictions: ContradictionEntry[];
  deprioritised: MemoryEntry[];
  proposals: ProposalEntry[];
  candidates: CandidateEntry[];
  silences: SilenceEntry[];
}

/** An entry's first line: its kind and id (the line the server's code actions are offered on). */
export const ENTRY = /^(?:- |### )(approach|contradiction|memory|proposal|candidate|silence) #(\d+)\b(.*)$/;
const CANDIDATE = /^ · \*\*(.+?)\*\* \(([^)]*)\) · confidence ([\d.]+)(?: · replaced by (.+?))? — (.*)$/;
// After the effort: `<date> by <actor>[ · shared in the repository (<path>)]` for the person's own
// entry, or `shared in the repository by <author>, <date>` for an entry only the repository holds.
const APPROACH = /^ · \*\*(.+?)\*\* \(([^)]*)\) · abandoned (here|everywhere|in .+?)(?: · effort (\d)\/5)? · (?:shared in the repository by (.+?), (\S+)|(\S+) by (.+?)(?: · shared in the repository \((.*?)\))?) — (.*)$/;
const SILENCE = /^ · \*\*(.+?)\*\* · (not flagged in editors|kept out of recall) · (here|everywhere) · (\S+) by (.+?) — (.*)$/;
const MEMORY_HEAD = /^\s*memory #(\d+)\b/;
const SEPARATOR = /(?<!\\)\|/;
const DASH = ' — ';

function cells(line: string): string[] {
  const parts = line.split(SEPARATOR).map((cell) => cell.trim().replace(/\\\|/g, '|'));
  return parts.slice(1, parts.length - 1);
}

function afterDash(rest: string): [string, string] {
  const at = rest.indexOf(DASH);
  return at < 0 ? [rest.replace(/^ · /, ''), ''] : [rest.slice(0, at).replace(/^ · /, ''), rest.slice(at + DASH.length)];
}

/** Split at the last occurrence: the content before it may hold the separator itself. */
function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.lastIndexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + separator.length)];
}

function approach(id: number, line: number, rest: string, project: string): ApproachEntry {
  const m = APPROACH.exec(rest);
  if (!m) {
    const [summary, reason] = afterDash(rest);
    return { kind: 'approach', id, line, displayName: summary || `approach #${id}`, project, where: '', reason };
  }
  const [, displayName, ecosystem, where, effort, teammate, sharedOn, date, actor, sharedPath, reason] = m;
  const graveyard = where === 'here' ? project : where === 'everywhere' ? '' : where.slice('in '.length);
  const entry: ApproachEntry = {
    kind: 'approach', id, line, displayName, ecosystem, project: graveyard, where,
    effort: effort ? Number(effort) : undefined, date: date ?? sharedOn, actor: actor ?? teammate, reason,
  };
  if (teammate !== undefined) Object.assign(entry, { shared: 'team', sharedBy: teammate });
  else if (sharedPath !== undefined) Object.assign(entry, { shared: 'mine', sharedPath });
  return entry;
}

function silence(id: number, line: number, rest: string, project: string): SilenceEntry {
  const m = SILENCE.exec(rest);
  if (!m) {
    const [summary, reason] = afterDash(rest);
    return { kind: 'silence', id, line, name: summary.replace(/\*\*/g, '') || `silence #${id}`, silenced: 'diagnostic', project, reason };
  }
  return {
    kind: 'silence', id, line, name: m[1].replace(/\\\|/g, '|'), silenced: m[2] === 'kept out of recall' ? 'recall' : 'diagnostic',
    project: m[3] === 'everywhere' ? '' : project, date: m[4], actor: m[5], reason: m[6],
  };
}

function contradiction(id: number, line: number, lines: string[], header: string): ContradictionEntry {
  const entry: ContradictionEntry = { kind: 'contradiction', id, line, contentA: '', contentB: '', explanation: '', header };
  let i = line + 1;
  const table: string[] = [];
  for (; i < lines.length && !/^#{1,3} /.test(lines[i]); i++) {
    if (lines[i].startsWith('|')) table.push(lines[i]);
    else if (lines[i].trim() && table.length && !entry.explanation) entry.explanation = lines[i].trim();
  }
  if (table.length >= 3) {
    const [a, b] = cells(table[0]).map((cell) => MEMORY_HEAD.exec(cell));
    entry.memoryA = a ? Number(a[1]) : undefined;
    entry.memoryB = b ? Number(b[1]) : undefined;
    [entry.contentA = '', entry.contentB = ''] = cells(table[2]);
  }
  return entry;
}

export function parseLedger(text: string, project: string): ParsedLedger {
  const parsed: ParsedLedger = { graveyard: [], contradictions: [], deprioritised: [], proposals: [], candidates: [], silences: [] };
  const lines = text.split(/\r\n|\r|\n/);
  lines.forEach((text, line) => {
    const m = ENTRY.exec(text);
    if (!m) return;
    const id = Number(m[2]);
    const rest = m[3];
    switch (m[1]) {
      case 'approach':
        parsed.graveyard.push(approach(id, line, rest, project));
        break;
      case 'contradiction':
        parsed.contradictions.push(contradiction(id, line, lines, rest.replace(/^ · /, '')));
        break;
      case 'memory': {
        const [summary, tail] = afterDash(rest);
        const [body, hints] = splitOnce(tail, ' — reinstate when: ');
        const [content, why] = splitOnce(body, ' — why: ');
        parsed.deprioritised.push({ kind: 'memory', id, line, summary, content, why, reinstateWhen: hints });
        break;
      }
      case 'proposal': {
        const [summary, reason] = afterDash(rest);
        parsed.proposals.push({ kind: 'proposal', id, line, summary, reason });
        break;
      }
      case 'candidate': {
        const c = CANDIDATE.exec(rest);
        const evidence = /^ {2}- (.*)$/.exec(lines[line + 1] ?? '')?.[1] ?? '';
        if (c) {
          parsed.candidates.push({ kind: 'candidate', id, line, name: c[1], ecosystem: c[2], confidence: Number(c[3]),
            replacement: c[4], reason: c[5], evidence });
        } else {
          const [summary, reason] = afterDash(rest);
          parsed.candidates.push({ kind: 'candidate', id, line, name: summary || `candidate #${id}`, reason, evidence });
        }
        break;
      }
      case 'silence':
        parsed.silences.push(silence(id, line, rest, project));
        break;
    }
  });
  return parsed;
}

/** "…/work/cenotaph" → "cenotaph"; "" → "global". */
export function shortProject(project: string): string {
  if (!project) return 'global';
  const parts = project.replace(/\.git$/, '').split(/[/\\:]/).filter(Boolean);
  return parts.length ? parts[parts.length - 1] : project;
}

export function clip(text: string, limit = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= limit ? flat : flat.slice(0, limit - 1).trimEnd() + '…';
}
