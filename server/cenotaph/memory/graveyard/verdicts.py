"""The graveyard's index and the verdict on a name, apart from the graveyard's verbs: an agent's
hook (memory/graveyard/enforce.py) builds the index from the graveyard's file beside the store
(store/graveyard_file.py) and judges with it, without the imports the verbs need."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from cenotaph.nlp import ecosystems, names
from cenotaph.store import graveyard_file

if TYPE_CHECKING:
    from cenotaph.memory.models import ApproachCheck
    from cenotaph.memory.team.folder import RepoApproach, SharedFolders
    from cenotaph.store.graveyard_rows import ApproachRow, SuppressionRow


def guess_ecosystem(name: str) -> str:
    return ecosystems.spelled_ecosystem(name) or ecosystems.DEFAULT


def _source_of(index: GraveyardIndex) -> Callable[[ApproachRow], str]:
    """memory/team/folder.py's `source_of`, imported only when the index holds a repository's
    approaches: without them every record is the store's."""
    if not index.shared:
        return lambda approach: "store"
    from cenotaph.memory.team.folder import source_of

    return source_of


class Verdict(NamedTuple):
    """ApproachCheck's fields, in its order: what a hook judges with, without importing the
    domain's models (the hook reads only `approach`, `scope` and `status`)."""

    name: str
    key: str
    status: Literal["abandoned", "reinstated", "clear"]
    scope: Literal["project", "global", "other_project"] | None
    approach: ApproachRow | None
    diagnostic_suppressed: bool
    source: Literal["store", "repo"] | None
    also: list[ApproachRow]


class GraveyardIndex(NamedTuple):
    """The graveyard by the keys a name is looked up under, as of the event log's `seq` and the
    shared folders' `shared_generation` (-1: none attached)."""

    seq: int
    by_key: dict[str, list[ApproachRow]]
    diagnostic_suppressions: dict[str, list[SuppressionRow]]
    recall_suppressions: dict[str, list[SuppressionRow]]
    vocabulary: frozenset[str]
    shared_generation: int
    shared: dict[int, RepoApproach]  # the repositories' approaches by id


def build_index(seq: int, rows: Iterable[ApproachRow], active_suppressions: Iterable[SuppressionRow],
                shared: dict[int, RepoApproach], generation: int) -> GraveyardIndex:
    """The store's approaches and suppressions with the repositories' shared approaches, by key."""
    by_key: dict[str, list[ApproachRow]] = defaultdict(list)
    vocabulary: set[str] = set()
    for approach in [*rows, *shared.values()]:
        keys = {approach.name, names.fold(approach.name), names.fold(approach.display_name)}
        keys.update(names.fold(a) for a in approach.aliases)
        keys.update(ecosystems.aliases_for(approach.name))
        for key in keys:
            by_key[key].append(approach)
        if approach.status == "abandoned":
            vocabulary.update(keys)
    diag: dict[str, list[SuppressionRow]] = defaultdict(list)
    rec: dict[str, list[SuppressionRow]] = defaultdict(list)
    for s in active_suppressions:
        # An import name stands for its distribution: `yaml` is suppressed with `pyyaml`.
        for key in {s.value, *ecosystems.aliases_for(s.value)}:
            (diag if s.kind == "diagnostic" else rec)[key].append(s)
    return GraveyardIndex(seq, dict(by_key), dict(diag), dict(rec), frozenset(vocabulary), generation, shared)


def shared_approaches(shared: SharedFolders) -> dict[int, RepoApproach]:
    """The approaches shared in the repositories' folders, by id."""
    return {row.id: row for state in shared.states() for row in state.approach_rows()}


def from_file(db: Path, shared: SharedFolders | None) -> GraveyardIndex | None:
    """The index from the graveyard's file beside the SQLite store `db`, if that file is current;
    None when it is missing, unreadable or stale, or the store cannot be read: the caller reads
    the store instead."""
    copy = graveyard_file.load(graveyard_file.path_for(db))
    if copy is None or not db.is_file() or not graveyard_file.current_beside(db, copy):
        return None
    return build_index(copy.seq, copy.approaches, copy.suppressions, {} if shared is None else shared_approaches(shared),
                       -1 if shared is None else shared.generation)


def check(index: GraveyardIndex, names_to_check: Iterable[str], project: str, *, include_other_projects: bool = True,
          ecosystem: str | None = None) -> list[ApproachCheck]:
    """`verdicts` as the domain's models."""
    from cenotaph.memory.models import ApproachCheck

    return [ApproachCheck(*v) for v in verdicts(index, names_to_check, project,
                                                include_other_projects=include_other_projects, ecosystem=ecosystem)]


def verdicts(index: GraveyardIndex, names_to_check: Iterable[str], project: str, *, include_other_projects: bool = True,
             ecosystem: str | None = None) -> list[Verdict]:
    """One verdict per name: this project's record wins over a global one, which wins over
    another project's; an abandoned record wins over a reinstated one in the same scope."""
    found_verdicts = []
    for raw in names_to_check:
        keys = ecosystems.lookup_keys(raw, ecosystem)
        found: dict[int, ApproachRow] = {}
        for key in keys:
            for approach in index.by_key.get(key, ()):
                found[approach.id] = approach
        if not found:
            # A name inside another (a Go package in its module): the nearest one that is
            # recorded answers.
            for prefix in ecosystems.enclosing(raw.strip(), ecosystem or guess_ecosystem(raw)):
                if hits := index.by_key.get(prefix):
                    found = {approach.id: approach for approach in hits}
                    break
        found_verdicts.append(_verdict(raw, keys[0] if keys else raw, list(found.values()), project,
                                       include_other_projects, index, ecosystem))
    return found_verdicts


def _verdict(raw: str, key: str, found: list[ApproachRow], project: str, include_other: bool,
             index: GraveyardIndex, ecosystem: str | None) -> Verdict:
    source_of = _source_of(index)

    def rank(a: ApproachRow) -> tuple[int, int, int, int]:
        # A name read in one ecosystem is first that ecosystem's record: another's namesake
        # (a Go path whose folded spelling is a PyPI name) answers only when it is alone.
        namesake = 1 if ecosystem is not None and a.ecosystem not in (ecosystem, ecosystems.ANY) else 0
        scope_rank = 0 if a.project == project else 1 if a.project == "" else 2
        # The person's own record before the repository's, in the same scope and status.
        return namesake, scope_rank, 0 if a.status == "abandoned" else 1, 0 if source_of(a) == "store" else 1

    candidates = sorted((a for a in found if include_other or a.project in (project, "")), key=rank)
    if not candidates:
        return Verdict(raw, key, "clear", None, None, False, None, [])
    best = candidates[0]
    scope = "project" if best.project == project else "global" if best.project == "" else "other_project"
    suppressed = any(
        s.project in ("", project) for k in {best.name, key} for s in index.diagnostic_suppressions.get(k, ())
    )
    # Abandoned both personally and in the repository (or here and everywhere): one verdict
    # that carries every reason.
    also = [a for a in candidates[1:] if best.status == "abandoned" and a.status == "abandoned"
            and a.project in (project, "")] if best.project in (project, "") else []
    return Verdict(name=raw, key=best.name, status=best.status, scope=scope, approach=best,
                   diagnostic_suppressed=suppressed, source=source_of(best), also=also)
