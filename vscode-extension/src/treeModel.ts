// What the Cenotaph view shows for a parsed ledger: its sections and one row per entry.

import { clip, LedgerCounts, LedgerEntry, ParsedLedger } from './ledger';

export type SectionKey = keyof ParsedLedger;

export interface Section {
  key: SectionKey;
  label: string;
  count: number;
  icon: string;
  entries: LedgerEntry[];
}

export interface EntryView {
  label: string;
  description: string;
  tooltip: string;
  /** `viewItem` for the context menu (package.json `view/item/context`): the entry's kind, and for a
   * shared approach `approach.mine` (the person's own) or `approach.team` (the repository's only). */
  contextValue: string;
  icon: string;
}

const SECTIONS: { key: SectionKey; label: string; icon: string; count: keyof LedgerCounts }[] = [
  { key: 'graveyard', label: 'Graveyard', icon: 'circle-slash', count: 'graveyard' },
  { key: 'contradictions', label: 'Open contradictions', icon: 'git-compare', count: 'contradictions' },
  { key: 'proposals', label: 'Pending proposals', icon: 'inbox', count: 'proposals' },
  { key: 'candidates', label: 'Candidates from history', icon: 'history', count: 'candidates' },
  { key: 'deprioritised', label: 'Deprioritised memories', icon: 'archive', count: 'deprioritised' },
  { key: 'silences', label: 'Silences', icon: 'mute', count: 'silences' },
];

export function sections(parsed: ParsedLedger, counts?: LedgerCounts): Section[] {
  return SECTIONS.map(({ key, label, icon, count }) => ({
    key, label, icon, entries: parsed[key], count: counts ? counts[count] : parsed[key].length,
  }));
}

export function entryView(entry: LedgerEntry): EntryView {
  switch (entry.kind) {
    case 'approach': {
      const facts = [entry.ecosystem, entry.where ? `abandoned ${entry.where}` : '', entry.effort ? `effort ${entry.effort}/5` : '']
        .filter(Boolean).join(' · ');
      const who = entry.date ? `\n${entry.date}${entry.actor ? ` by ${entry.actor}` : ''}` : '';
      const mark = entry.shared === 'mine' ? `\nShared in the repository (${entry.sharedPath})`
        : entry.shared === 'team' ? `\nShared in the repository by ${entry.sharedBy}` : '';
      return {
        label: entry.displayName,
        description: clip(`${entry.shared ? 'shared · ' : ''}${entry.reason || facts}`, 80),
        tooltip: `${entry.displayName} (${facts})\n${entry.reason}${who}${mark}`,
        contextValue: entry.shared ? `approach.${entry.shared}` : 'approach',
        icon: entry.shared ? 'organization' : 'circle-slash',
      };
    }
    case 'silence': {
      const what = entry.silenced === 'recall' ? 'kept out of recall' : 'not flagged in editors';
      const where = entry.project === '' ? 'everywhere' : 'here';
      return {
        label: entry.name,
        description: `${what} · ${where}`,
        tooltip: [`silence #${entry.id}: ${entry.name} is ${what}, ${where}`, entry.reason,
          entry.date ? `${entry.date}${entry.actor ? ` by ${entry.actor}` : ''}` : ''].filter(Boolean).join('\n'),
        contextValue: 'silence',
        icon: 'mute',
      };
    }
    case 'contradiction':
      return {
        label: `${clip(entry.contentA, 40)} ↔ ${clip(entry.contentB, 40)}`,
        description: entry.memoryA && entry.memoryB ? `#${entry.memoryA} vs #${entry.memoryB}` : `#${entry.id}`,
        tooltip: [`Contradiction #${entry.id} · ${entry.header}`, `A (#${entry.memoryA ?? '?'}): ${entry.contentA}`,
          `B (#${entry.memoryB ?? '?'}): ${entry.contentB}`, entry.explanation].filter(Boolean).join('\n'),
        contextValue: 'contradiction',
        icon: 'git-compare',
      };
    case 'memory':
      return {
        label: clip(entry.content || entry.summary, 80),
        description: `#${entry.id} · ${entry.summary}`,
        tooltip: [`memory #${entry.id} · ${entry.summary}`, entry.content, entry.why ? `Why: ${entry.why}` : '',
          entry.reinstateWhen ? `Reinstate when: ${entry.reinstateWhen}` : ''].filter(Boolean).join('\n'),
        contextValue: 'memory',
        icon: 'archive',
      };
    case 'candidate': {
      const facts = [entry.ecosystem, entry.confidence !== undefined ? `confidence ${entry.confidence.toFixed(2)}` : '',
        entry.replacement ? `replaced by ${entry.replacement}` : ''].filter(Boolean).join(' · ');
      return {
        label: entry.name,
        description: clip(entry.reason, 80),
        tooltip: [`candidate #${entry.id}: ${entry.name} (${facts})`, entry.reason, entry.evidence].filter(Boolean).join('\n'),
        contextValue: 'candidate',
        icon: 'history',
      };
    }
    case 'proposal':
      return {
        label: entry.summary,
        description: clip(entry.reason, 80),
        tooltip: `proposal #${entry.id}: ${entry.summary}\n${entry.reason}`,
        contextValue: 'proposal',
        icon: 'inbox',
      };
  }
}

/** The server command and argument of a context-menu action on an entry (the same commands the
 * code actions run); undefined when the action does not apply to that entry. */
export function itemCommand(action: string, entry: LedgerEntry, documentProject: string):
  { command: string; argument: Record<string, unknown> } | undefined {
  switch (entry.kind) {
    case 'approach': {
      const table: Record<string, { command: string; argument: Record<string, unknown> }> = {
        showWhy: { command: 'cenotaph.showWhy', argument: { approachId: entry.id } },
        silenceProject: { command: 'cenotaph.silence', argument: { name: entry.displayName, scope: 'project', project: documentProject } },
        silenceEverywhere: { command: 'cenotaph.silence', argument: { name: entry.displayName, scope: 'everywhere' } },
      };
      // The repository's file is the record of a teammate's entry: it is only unshared, never reinstated here.
      if (entry.shared !== 'team') {
        table.reinstateApproach = { command: 'cenotaph.reinstate', argument: { name: entry.displayName, project: entry.project } };
        table.markWrong = { command: 'cenotaph.markWrong', argument: { approachId: entry.id } };
        // The effort is picked in the client before it is sent (commands.ts).
        table.setEffort = { command: 'cenotaph.setEffort', argument: { name: entry.displayName, project: entry.project } };
      }
      if (entry.shared) {
        table.stopSharing = { command: 'cenotaph.unshare',
          argument: { ...(entry.sharedPath ? { path: entry.sharedPath } : { name: entry.displayName }), project: documentProject } };
      }
      return table[action];
    }
    case 'silence':
      return action === 'liftSilence'
        ? { command: 'cenotaph.liftSilence', argument: { name: entry.name, kind: entry.silenced, project: entry.project } }
        : undefined;
    case 'contradiction': {
      const keep: Record<string, string> = { keepA: 'a', keepB: 'b', keepBoth: 'both', keepNeither: 'neither' };
      if (keep[action]) return { command: 'cenotaph.resolveContradiction', argument: { contradictionId: entry.id, keep: keep[action] } };
      if (action === 'dismissContradiction') return { command: 'cenotaph.dismissContradiction', argument: { contradictionId: entry.id } };
      return undefined;
    }
    case 'memory': {
      const table: Record<string, { command: string; argument: Record<string, unknown> }> = {
        reinstateMemory: { command: 'cenotaph.reinstateMemory', argument: { memoryId: entry.id } },
        archiveMemory: { command: 'cenotaph.archive', argument: { memoryId: entry.id } },
        confirmMemory: { command: 'cenotaph.setTrust', argument: { memoryId: entry.id, trust: 'confirmed' } },
        refuteMemory: { command: 'cenotaph.setTrust', argument: { memoryId: entry.id, trust: 'refuted' } },
        blessMemory: { command: 'cenotaph.bless', argument: { memoryId: entry.id } },
      };
      return table[action];
    }
    case 'candidate':
      if (action === 'acceptCandidate') return { command: 'cenotaph.acceptProposal', argument: { proposalId: entry.id } };
      if (action === 'editCandidate') return { command: 'cenotaph.acceptCandidate', argument: { proposalId: entry.id, draft: entry.reason } };
      if (action === 'rejectCandidate') return { command: 'cenotaph.rejectProposal', argument: { proposalId: entry.id } };
      return undefined;
    case 'proposal':
      if (action === 'acceptProposal') return { command: 'cenotaph.acceptProposal', argument: { proposalId: entry.id } };
      if (action === 'rejectProposal') return { command: 'cenotaph.rejectProposal', argument: { proposalId: entry.id } };
      return undefined;
  }
}

/** The context-menu actions, by the command id suffix in package.json (`cenotaph.item.<action>`). */
export const ITEM_ACTIONS = [
  'showWhy', 'reinstateApproach', 'setEffort', 'silenceProject', 'silenceEverywhere', 'markWrong', 'stopSharing',
  'keepA', 'keepB', 'keepBoth', 'keepNeither', 'dismissContradiction',
  'acceptProposal', 'rejectProposal',
  'acceptCandidate', 'editCandidate', 'rejectCandidate',
  'reinstateMemory', 'archiveMemory', 'confirmMemory', 'refuteMemory', 'blessMemory',
  'liftSilence',
] as const;
