"""What a dropped name is: the candidate `mine git` proposes (its replacement, classes, reason
and confidence), or why it is passed over."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterable
from datetime import datetime

from cenotaph.memory.mining.candidates import Candidate
from cenotaph.memory.mining.evidence import (
    BUMP,
    DEPENDENCY_UPDATE,
    Ground,
    confidence,
    floor_rise,
    pin_note,
    shim_evidence,
)
from cenotaph.memory.mining.messages import (
    REVERTS,
    SIGNAL_WORDS,
    commit_why,
    instead_of,
    names_package,
    names_part_of,
    product_of,
    removal_subject,
    renamed,
    revert_subject,
    says_unused,
    says_vendored,
    shorten,
    speaks_of,
    subject_names_file,
    versioned,
)
from cenotaph.memory.mining.walk import Episode, Key, Walk, kind_of
from cenotaph.nlp import ecosystems
from cenotaph.nlp.names import fold

_DEV_WORDS = re.compile(
    r"(?<![a-z])(?:dev|develop|tests?|testing|lint|docs?|typing|types|check|format|style|bench|ci)(?![a-z])",
    re.IGNORECASE,
)


# A commit that drops more names than this from one ecosystem is a reorganisation (a lock-step
# upgrade, a move to another tool), not a judgement on each of them.
CHURN = 5


# What stands for the system a build runs on, not for the code's own dependencies.
SYSTEM_ECOSYSTEMS = frozenset(name for name, module in ecosystems.MODULES.items() if module == "containers")


def candidate_for(walk: Walk, key: Key, episodes: list[Episode]) -> Candidate:
    """The candidate, with the evidence it rests on (`grounds`) and the confidence computed from
    it: a deliberate drop (the message names it or says why, a revert, a replacement, a changelog
    entry, a runtime dependency) above churn, tooling and the build's environment."""
    ecosystem, _ = key
    last = episodes[-1]
    assert last.removed is not None and last.removed_in is not None
    replacement, replacement_from = _replacement_cached(walk, key, last)
    reverted = REVERTS.findall(last.message)
    is_revert = last.added is not None and any(last.added.ref.startswith(sha) for sha in reverted)
    lived = _lifetime(episodes)
    classes = _classes(key, last)
    shim = shim_evidence(last.name, walk.removed_texts.get(key, ""), last.message)
    if shim and "backport" not in classes:
        classes = (*classes, "backport")
    signal = SIGNAL_WORDS.search(last.message)
    # Naming only a package inside it (a Go module's), the message speaks of that package: its words
    # and the replacement it names are not about this one.
    part_only = names_part_of(last.message, last.name)
    named = names_package(last.message, last.name)
    floor = floor_rise(last.message, ecosystem)
    # A commit that raises the platform's floor and does not name the package drops what only older
    # versions needed (a ponyfill, a polyfill, a module renamed for the new syntax): its "drop" is
    # the platform's, not the package's.
    compat = floor is not None and not named and "backport" not in classes
    if compat or part_only:
        signal = None
    dropped_too = sum(1 for other in walk.removed_by_commit[last.removed_in] if other[0] == ecosystem)
    removed = last.removed
    grounds = []
    # Added and reverted within days: an experiment undone, and what it "replaced" is what was there.
    # A subject that reverts ("revert last commit") undoes it too when the reverted sha is not given.
    experiment = (is_revert or revert_subject(last.message)) and lived is not None and lived < EXPERIMENT_DAYS
    if experiment:
        grounds.append(Ground("experiment", f"an experiment, its addition reverted after {lived} days"))
        replacement, replacement_from = None, None
    elif is_revert:
        grounds.append(Ground("revert", "its removal reverts its addition"))
    if (floor and "backport" in classes and replacement_from == "commit") or part_only:
        # A backport retired with the floor gives way to the standard library, not to a tool the
        # commit added for the upgrade (`mock` and `pyupgrade` in "Drop support for EOL Python 2");
        # what replaced a package inside a module the message names replaced that package, not the
        # module ("Use golang.org/x/term" for golang.org/x/crypto/ssh/terminal).
        replacement, replacement_from = None, None
    if named:
        grounds.append(Ground("named", "the removing commit names it"))
    if signal and not experiment:
        grounds.append(Ground("signal", f"the removing commit says \"{signal[0].lower()}\""))
    unused = says_unused(last.message, last.name)
    if unused:
        grounds.append(Ground("unused", f"the removing commit says it was {unused}"))
    # The one name of its role a dependency update added where this one went is this package updated
    # under its new name (`eslint-plugin-node` → `eslint-plugin-n`, `dtslint` → `@definitelytyped/dtslint`).
    updated = replacement_from == "commit" and DEPENDENCY_UPDATE.match(last.message.strip()) is not None
    same_package = bool(replacement) and (renamed(last.name, replacement, last.message) or updated or
                                          _channel_alias(ecosystem, last.name, replacement))
    # "Replace eslint with prettier" dropping eslint's plugins too: the successor the message names
    # is credited to each, but it replaces the one the message is about, not those that went with it.
    # A rewrite's framework is the one the message is about (`_framework_of`).
    shared = replacement_from == "message" and not named and not same_package and \
        _shares_replacement(walk, key, last, replacement) and not _framework_of(walk, key, last)
    if shared:
        grounds.append(Ground("replaced_shared", f"{replacement}, named in the message, is the successor of other "
                                                 "names the commit dropped, not of this one, which it does not name"))
        replacement, replacement_from = None, None
    elif same_package:
        grounds.append(Ground("same_package", f"the same package published again as {replacement}, " +
                              ("added by a commit that updates the dependencies" if updated else "and the commit says no more")))
    elif replacement_from == "message":
        grounds.append(Ground("replaced_message", f"replaced by {replacement}, named in the message and added or declared"))
    elif replacement_from == "usage":
        grounds.append(Ground("replaced_usage", f"replaced by {replacement}: the commit runs it where it ran {last.name}"))
    elif replacement:
        grounds.append(Ground("replaced_commit", f"replaced by {replacement}, the one name of its role the commit added"))
    if used_in := walk.use_dropped(key, last):
        grounds.append(Ground("use_dropped", f"the removing commit took its use out of {used_in}"))
    elif not named and ecosystem not in SYSTEM_ECOSYSTEMS and (word := _PLUGIN.search(last.name)):
        # A tool's plugin or shared configuration, unnamed, no use of it taken out: it went with a
        # change of the tooling's setup ("Switch from StandardJS to ESLint"), not by a choice of its own.
        grounds.append(Ground("plugin", f"a tool's {word[0].lower()}, unnamed, and no use of it taken out"))
    if entry := walk.changelogs.entry(last.name):
        grounds.append(Ground("changelog", f"the changelog: \"{shorten(entry, 100)}\""))
    if not replacement and (pin := pin_note(last.name, walk.removed_texts.get(key, ""), last.message)):
        grounds.append(Ground("pin", f"a pin kept for a while or for another package's sake ({pin})"))
    system = ecosystem in SYSTEM_ECOSYSTEMS
    if system:
        # Named by the removing commit ("don't install wget"), or its successor named ("Use Ubuntu 22
        # to match GitHub Actions"), it was a choice about the build.
        chosen = named or (replacement_from == "message" and not same_package)
        grounds.append(Ground("system_chosen" if chosen else "system", "a system package or base image: the build's environment"))
    elif _role(last.groups) == "runtime" and "dev" not in classes:
        grounds.append(Ground("runtime", "a runtime dependency"))
    if lived is not None:
        same_day = last.added is not None and _days_between(last.added.at, removed.at) == 0 and len(episodes) == 1
        # Short-lived and dropped without a word (not named, no why, no replacement): a trial set aside.
        # Its use taken out of the code by the same commit is no silence: the code says it went.
        silent = not (named or signal or replacement or is_revert or used_in)
        grounds.append(Ground("same_day" if same_day else ("short_silent" if silent else "short") if lived < TRIED_DAYS
                              else "long",
                              f"declared {lived} days" + (", dropped without a word" if silent and lived < TRIED_DAYS else "")))
    # Many names dropped at once are a reorganisation's, unless removing is what the commit set out
    # to do ("npm: uninstall a bunch of packages", "Removed gulpfile") — and what it removed is not
    # the manifest ("Removed Dockerfile", "Docs: Clean up docs/requirements.txt"): the names a file
    # declared go with it, each no more chosen than a deleted Dockerfile's base image.
    set_out = removal_subject(last.message) and not subject_names_file(last.message, removed.path)
    if dropped_too > CHURN and not named and replacement_from != "message" and not set_out:
        grounds.append(Ground("churn", f"one of {dropped_too} names the commit dropped"))
    for name in ("build", "subproject", "moved-out"):
        if name in classes:
            grounds.append(Ground(name.replace("-", "_"), f"class {name}"))
    if {"dev", "backport"} & set(classes):
        grounds.append(Ground("dev", "a development tool") if "dev" in classes else Ground("backport", "a backport"))
    if compat and not replacement:
        # With no successor added, the newer platform does its work (Object.assign from Node.js 4).
        grounds.append(Ground("compat", f"dropped unnamed, with no successor, by a commit that raised the floor to "
                                        f"{floor}: for older versions"))
    if _DIRECT_ONLY.search(last.message):
        grounds.append(Ground("direct_only", "the removing commit drops only the direct dependency: still used through another"))
    if says_vendored(last.message, last.name):
        grounds.append(Ground("vendored", "the removing commit vendors its code: still used, as a copy"))
    if "backport" not in classes:
        floor = None
    if floor:
        grounds.append(Ground("floor", f"a backport retired when the floor rose ({floor}{'; ' + shim if shim else ''})"))
    # The commit's why, short; the commit itself is cited beside it (`commit`, the evidence), and
    # the lifetime and classes are fields of their own.
    reason = commit_why(last.message) or commit_why(removed.summary) or f"removed from {removed.path}"
    if is_revert:
        reason += "; a revert of its addition"
    if replacement and replacement.lower() not in reason.lower():
        reason += f"; replaced by {replacement}"
    if floor:
        reason += f"; a backport, retired with {floor}"
    evidence = [e for episode in episodes[-3:] for e in (episode.added, episode.removed) if e is not None]
    return Candidate(name=last.name, ecosystem=ecosystem, reason=shorten(reason), confidence=confidence(grounds),
                     evidence=tuple(evidence), classes=classes, replacement=replacement, lived_days=lived,
                     revert=is_revert, commit=removed.ref[:7], grounds=tuple(map(str, grounds)),
                     features=tuple(ground.feature for ground in grounds))


def with_ground(candidate: Candidate, ground: Ground) -> Candidate:
    """The candidate with one more ground, and its confidence computed again."""
    features = (*candidate.features, ground.feature)
    return dataclasses.replace(candidate, grounds=(*candidate.grounds, str(ground)), features=features,
                               confidence=confidence(Ground(feature, "") for feature in features))


# A revert of an addition made fewer days before than this undoes an experiment: no decision about
# the name, which was tried and taken back.
EXPERIMENT_DAYS = 7
# A name declared for less than this and dropped without a word about it is a slip in writing the
# manifest (a feature word listed as a requirement, a name fixed minutes later), not a choice.
SLIP_SECONDS = 24 * 3600
# A development tool declared for fewer days than this and dropped without a word, a revert or a
# replacement was tried and set aside for reasons the history does not tell: too unclear to propose.
TRIED_DAYS = 30


# "Remove direct dependency on MkDocs, Material for MkDocs defines its own": only the declaration went.
_DIRECT_ONLY = re.compile(r"\bdirect(?:ly)?\s+(?:dep\w*|requirement)", re.IGNORECASE)


def _shares_replacement(walk: Walk, key: Key, last: Episode, replacement: str | None) -> bool:
    """Whether another name of the ecosystem that the same commit dropped is credited with the same
    replacement."""
    assert last.removed_in is not None
    index = last.removed_in
    for other in walk.removed_by_commit[index]:
        if other[0] != key[0] or other == key:
            continue
        episode = next((e for e in walk.episodes[other] if e.removed_in == index), None)
        if episode is not None and _replacement_cached(walk, other, episode)[0] == replacement:
            return True
    return False


def _channel_alias(ecosystem: str, name: str, successor: str) -> bool:
    """Whether a conda successor is the same package under the channel's name for its Python
    binding (`duckdb` → `python-duckdb`), whatever the subject says of it: the channel's naming,
    not a choice of another package."""
    if ecosystem != "conda":
        return False
    old, new = fold(name), fold(successor)
    return old != new and (new == fold(f"python-{name}") or old == fold(f"python-{successor}"))


def _replacement_cached(walk: Walk, key: Key, episode: Episode) -> tuple[str | None, str | None]:
    """`_replacement`, read once per name and removing commit (its siblings ask for it too)."""
    found = walk.replacements.get((key, episode.removed_in))
    if found is None:
        found = walk.replacements[(key, episode.removed_in)] = _replacement(walk, key, episode)
    return found


def dropped_by_name(last: Episode, candidate: Candidate | None = None, walk: Walk | None = None) -> bool:
    """The removing commit names the package ("Update references to Requests for tests to HTTPX",
    "remove unnecessary `@rolldown/pluginutils`"), says the dependencies it dropped were not needed
    ("Remove unused windows dependencies") or names what it switched to and declared ("Switch to
    'ignore'"), and not as a direct dependency only: a lock file at HEAD that still resolves it
    does so for another package."""
    if still_used(last):
        return False
    # The switch speaks for this name when the commit dropped no other name of its ecosystem.
    alone = walk is not None and last.removed_in is not None and \
        [k for k in walk.removed_by_commit[last.removed_in] if k[0] == candidate.ecosystem] == [(candidate.ecosystem, candidate.key)] \
        if candidate is not None else False
    switched = alone and candidate is not None and "replaced_message" in candidate.features
    return speaks_of(last.message, last.name) or says_unused(last.message, last.name) is not None or switched


def still_used(last: Episode) -> bool:
    """The removing commit says the name stays in use: it dropped only the direct dependency, or
    replaced only a package inside the module."""
    return bool(_DIRECT_ONLY.search(last.message)) or names_part_of(last.message, last.name)


def _next_major(walk: Walk, key: Key, last: Episode) -> str | None:
    """The package's own later major version (a new name in Go) that the removing commit added or
    HEAD declares, if one is."""
    assert last.removed_in is not None
    ecosystem, name = key
    lineage = ecosystems.lineage(name, ecosystem)
    others = {*walk.declared_at_head, *(added[0] for added in walk.added_by_commit[last.removed_in])}
    found = next((walk.episodes[other][-1].name for other in sorted(others) if other[0] == ecosystem
                  and other != key and walk.episodes[other] and ecosystems.lineage(other[1], ecosystem) == lineage), None)
    return found or _major_kept(walk, key, last, lineage)


def _major_kept(walk: Walk, key: Key, last: Episode, lineage: str) -> str | None:
    """Another major version of the package that stayed declared past the removing commit, though
    HEAD no longer declares it ("drop yaml v2 support" while `yaml.v3` stays, itself moved later):
    only one of its versions went."""
    assert last.removed is not None
    ecosystem, _ = key
    at = _instant(last.removed.at)
    for other, episodes in walk.episodes.items():
        # Every major version's key starts with the lineage (Go's `mod` → `mod/v2`): the cheap test first.
        if other[0] != ecosystem or other == key or not other[1].startswith(lineage) or \
                ecosystems.lineage(other[1], ecosystem) != lineage:
            continue
        for episode in episodes:
            if episode.removed_in is not None and episode.removed_in > last.removed_in and \
                    (episode.added is None or _instant(episode.added.at) <= at):
                return episode.name
    return None


# A Rust crate's procedural macros, published apart (`serde_derive`, `tokio-macros`, `thiserror-impl`).
_MACRO_CRATE = re.compile(r"^(?P<parent>.+)[-_](?:derive|macros|impl)$")


def _macro_parent(walk: Walk, key: Key) -> str | None:
    """The crate whose macros the Cargo name is, when HEAD still declares it: it re-exports them
    (serde's `derive` feature), so dropping the macro crate is no choice of its own."""
    ecosystem, name = key
    found = _MACRO_CRATE.match(name) if ecosystem == "cargo" else None
    if found is None:
        return None
    parent = (ecosystem, ecosystems.normalize(found["parent"], ecosystem))
    return walk.episodes[parent][-1].name if parent in walk.declared_at_head and walk.episodes.get(parent) else None


def went_with(walk: Walk, candidate: Candidate, last: Episode) -> list[Ground]:
    """Evidence that the name went with code the commit took away, not by a choice of its own: a
    rewrite of its project (most of its files deleted or moved) that names no successor, or every
    file that used it deleted. Evidence, not a verdict: such a rewrite also swaps libraries one by
    one (a Python engine for a Rust one), and the code deleted may be what a successor replaced —
    on the judged corpus, 6 of the 8 names gone with all their code were decisions, so the fit
    weighs `with_code` for the name, not against it. Asked of the names `passed_over` kept (each
    question reads trees or greps)."""
    named = names_package(last.message, last.name, scope=False)
    said_replacement = not {"replaced_message", "replaced_shared"}.isdisjoint(candidate.features)
    if not named and (gone := walk.project_gone(last)) and not gone.whole:
        return [] if said_replacement else [Ground("rewrite", gone.why)]
    if named or said_replacement or candidate.replacement or candidate.revert or SIGNAL_WORDS.search(last.message):
        return []
    # The subproject rule's kin for code without a manifest of its own (a Go package, a script).
    users = walk.users_deleted(last)
    return [Ground("with_code", f"used only by code the commit deleted ({users})")] if users else []


def _family(name: str) -> str:
    """The product a package belongs to by its name: its scope (`@docusaurus/types`: docusaurus),
    else its first word (`gatsby-plugin-sharp`: gatsby)."""
    return name[1:].split("/", 1)[0] if name.startswith("@") else re.split(r"[-_./]", name, maxsplit=1)[0]


def _framework_of(walk: Walk, key: Key, last: Episode) -> bool:
    """Whether the name stands for the framework the commit dropped with its plugins: the family
    most of the names it dropped belong to (at least three), and this name is that family's own
    package or its core (`@docusaurus/core`, `gatsby`)."""
    assert last.removed_in is not None
    families = Counter(_family(walk.episodes[k][-1].name) for k in walk.removed_by_commit[last.removed_in]
                       if k[0] == key[0])
    if not families:
        return False
    family, count = families.most_common(1)[0]
    return count >= 3 and _family(last.name) == family and \
        (fold(last.name.lstrip("@")) == fold(family) or fold(product_of(last.name) or "") == fold(family))


def _bridged(walk: Walk, key: Key, last: Episode) -> str | None:
    """The tool, dropped by the same commit, that the name made something work in: `ts-jest`
    (TypeScript in jest) and `babel-jest` are named `<what>-<tool>`, unlike a plugin adding a
    feature of its own to the tool (`flake8-bugbear`, `jest-extended`)."""
    assert last.removed_in is not None
    ecosystem, name = key
    return next((walk.episodes[other][-1].name for other in walk.removed_by_commit[last.removed_in]
                 if other[0] == ecosystem and other != key and not other[1].startswith("@")
                 and name.rsplit("/", 1)[-1].endswith(f"-{other[1]}")), None)


def passed_over(walk: Walk, key: Key, candidate: Candidate, last: Episode) -> str | None:
    """Why a dropped name is no abandoned approach, or None when it may be one. Each rule needs
    the history's silence (a removal that names the package, says why or reverts it is proposed),
    but for a move to the package's own next major version, an upgrade, and for a move into a
    script that installs it, whatever it says."""
    assert last.removed is not None
    if next_major := _next_major(walk, key, last):
        return f"upgraded to its next major version, {next_major}"
    if parent := _macro_parent(walk, key):
        return f"the procedural macros of {parent}, which HEAD still declares and re-exports them: the same package"
    if installed_in := walk.installed_elsewhere(key, last):
        return f"moved from {last.removed.path} into {installed_in}, which installs it: not dropped"
    if installed_in := walk.installed_at_head.get(key):
        # Whatever the removing commit said, the build still installs it: only one declaration went.
        return f"still installed at HEAD by {installed_in}: in use, declared another way"
    if ecosystems.is_type_stubs(candidate.key):
        # Types follow their package: when it left, its own drop is the proposal; when it stayed
        # (or never was declared, a stdlib backport's stubs), nothing was abandoned.
        return "types for another package, not a choice of their own"
    if candidate.ecosystem == "container" and last.manifest_deleted:
        return f"the base image of {last.removed.path}, deleted whole"
    siblings = ecosystems.get(candidate.ecosystem).siblings
    if any((other, ecosystems.normalize(last.name, other)) in walk.own for other in (candidate.ecosystem, *siblings)):
        return "the name of one of the repository's own packages (or their former name)"
    if also := next((other for other in siblings
                     if (other, ecosystems.normalize(last.name, other)) in walk.declared_at_head), None):
        return f"still declared at HEAD, as a {also} name: the same software, declared another way"
    subject = last.source.subject if last.source else ""
    bump = BUMP.match(subject) or _upgrade_of_declared(walk, candidate.ecosystem, subject)
    if bump and fold(bump[1].rsplit("/", 1)[-1]) != fold(last.name.rsplit("/", 1)[-1]) \
            and not speaks_of(last.message, last.name):
        return f"dropped by a version bump of {bump[1]}, in a commit about that package"
    named = names_package(last.message, last.name, scope=False)
    # A successor the message names, for this name or for the several the commit dropped.
    said_replacement = not {"replaced_message", "replaced_shared"}.isdisjoint(candidate.features)
    if not named and (gone := walk.project_gone(last)) and \
            (gone.whole or said_replacement and not _framework_of(walk, key, last)):
        # Like a deleted Dockerfile's base image: the subproject went, its dependencies with it; and
        # a rewrite that swapped its framework for the one its message names chose that framework,
        # its plugins and the pages' libraries went with it.
        return gone.why
    if not named and (bridged := _bridged(walk, key, last)):
        return f"made something work in {bridged}, dropped with it: no choice of its own"
    if candidate.revert or named or said_replacement or SIGNAL_WORDS.search(last.message):
        return None
    if last.turned_indirect:
        return "still required for a dependency's sake (`// indirect`), in a commit that says nothing of it"
    if last.added is not None:
        seconds = (_instant(last.removed.at) - _instant(last.added.at)).total_seconds()
        if seconds < SLIP_SECONDS:
            return f"declared for {max(1, round(seconds / 60))} minutes and dropped without a word: a slip"
    if "dev" in candidate.classes and candidate.replacement is None and last.added is not None \
            and _days_between(last.added.at, last.removed.at) < TRIED_DAYS:
        return (f"a development tool tried for {_days_between(last.added.at, last.removed.at)} days and dropped "
                "without a word in a commit about something else")
    return None


# "feat!: update to rollup v4", "upgrade to Vite 5": a commit about another package's new version.
_UPGRADE_TO = re.compile(r"^(?:\w+(?:\([\w-]+\))?!?:\s*)?(?:bump|update|upgrade)\s+to\s+`?([\w@./-]+)`?\s+v?\d",
                         re.IGNORECASE)


def _upgrade_of_declared(walk: Walk, ecosystem: str, subject: str) -> re.Match[str] | None:
    """The subject says the commit moves to a new version of a package of the ecosystem the
    history declares ("update to rollup v4"), if it does."""
    found = _UPGRADE_TO.match(subject)
    return found if found and (ecosystem, ecosystems.normalize(found[1], ecosystem)) in walk.episodes else None


def _lifetime(episodes: list[Episode]) -> int | None:
    """Days declared, summed over every stretch whose addition was seen (a name dropped, added
    again and dropped again lived both times)."""
    spans = [_days_between(e.added.at, e.removed.at) for e in episodes if e.added is not None and e.removed is not None]
    return sum(spans) if spans else None


def _role(groups: Iterable[str]) -> str:
    """runtime, build or dev: a replacement takes the role of what it replaces."""
    bases = {group.rsplit(":", 1)[-1] if group.startswith("target:") else group for group in groups}
    if bases and all(map(_is_dev_group, bases)):
        return "dev"
    if bases == {"build"}:
        return "build"
    return "runtime"


def _replacement(walk: Walk, key: Key, episode: Episode) -> tuple[str | None, str | None]:
    """What replaced a name, only with evidence: a name the removing commit's message names beside
    it that the commit (or its merged branch) declared anew or that is declared at HEAD; else the
    one name whose command the commit put where this one's was (`Walk.swapped_in`); else the one
    name of the same ecosystem and role the commit added and says it uses, or added when it
    dropped only this one of them."""
    assert episode.removed_in is not None
    index = episode.removed_in
    message = episode.message  # the commit that made the removal, on a merged branch too
    role = _role(episode.groups)
    added = [(name, groups) for added_key, name, _, groups in walk.added_by_commit[index]
             if added_key[0] == key[0] and added_key != key]
    dropped = [k for k in walk.removed_by_commit[index] if k[0] == key[0]]
    # What speaks of this name: the lines of the message that name it ("Replace nose with pytest");
    # else the subject, when the commit dropped no other name. In a list of changes, a line that
    # names neither it nor the subject's business is about another change ("add pyright config").
    lines = [line for line in message.splitlines() if line.strip()]
    subject = lines[0] if lines else ""
    mentions = "\n".join(line for line in lines if speaks_of(line, episode.name))
    said = mentions or (subject if dropped == [key] else "")
    # The same name at another version, declared by the commit (`python-pip` → `python3-pip` when
    # the message says "python3"): what the name became, whatever else the message names.
    if twin := next((name for name, _ in added if versioned(episode.name, name)), None):
        return twin, "message" if _position(said or subject, twin) is not None else "commit"
    # The name the message gives first ("from setuptools to hatchling + hatch-vcs": hatchling), so
    # that the answer does not hang on the order the commit's names were read in.
    named = sorted((position, name) for name, _ in added if said and (position := _position(said, name)) is not None)
    if named:
        return named[0][1], "message"
    for other in sorted(walk.declared_at_head):  # "drop ujson, use orjson" (declared already)
        if said and other[0] == key[0] and other != key and walk.episodes[other] \
                and instead_of(walk.episodes[other][-1].name).search(said):
            return walk.episodes[other][-1].name, "message"
    if swapped := walk.swapped_in(key, episode):
        return swapped, "usage"
    same_role = [name for name, groups in added if _role(groups) == role]
    # "Use ruff linter and formatter": the one name of its role the commit added and its subject
    # says it uses replaces each name of that role it dropped without a word.
    used = [name for name in same_role if instead_of(name).search(subject)] if not _replaces_other(subject, episode.name) else []
    if len(used) == 1 and not mentions:
        return used[0], "message"
    dropped_same_role = [k for k in dropped if _role(walk.episodes[k][-1].groups) == role]
    # A system package's list (apt, apk) gains and loses names for needs of their own: the one added
    # beside a drop is no successor by that alone (an image's is).
    listed = key[0] in SYSTEM_ECOSYSTEMS and key[0] != "container"
    if len(same_role) == 1 and dropped_same_role == [key] and says_unused(message, episode.name) is None \
            and not listed:
        other_change = speaks_of(message, same_role[0]) and not speaks_of(f"{subject}\n{mentions}", same_role[0])
        # When the commit took the name's imports out of the code, its successor's come in where they
        # were ("remove jotframe" adding xxhash for another use is no swap); when it took none out, a
        # successor imported anew was brought in for a use of its own.
        if not other_change and walk.code_swapped(key, episode, same_role[0]) is not False:
            return same_role[0], "commit"
    # The subject speaks for every name the commit dropped when it names none of them ("use uv").
    about_all = "" if said or any(speaks_of(subject, walk.episodes[k][-1].name) for k in walk.removed_by_commit[index]) \
        else subject
    if (word := _said_use(said or about_all, episode.name)) and (spelled := walk.brought_in(episode, word, said=bool(said))):
        return spelled, "message"
    return None, None


# "use uv", "Migrate linting from various tooling to Ruff", "switch to flit", "in favour of nox".
_USE = re.compile(r"\b(?:use[sd]?|using|adopt(?:s|ed)?|switch(?:es|ed)?\s+to|in\s+favou?r\s+of|(?:migrat|mov|port)\w*\s+"
                  r"(?:[\w\s,/-]{0,60}?\s)?to|replac\w*\s+(?:[\w\s,/-]{0,40}?\s)?with)\s+`?([A-Za-z@][\w@./-]*[\w])`?", re.IGNORECASE)
_NOT_NAMES = frozenset(["the", "a", "an", "our", "its", "it", "this", "that", "them", "new", "latest", "same", "newer", "native", "built", "builtin", "standard", "python", "node", "rust", "go", "version"])


# "replace tox with poethepoet", "migrate from tox to nox": what the sentence replaces.
_REPLACES = re.compile(r"\b(?:replac\w*\s+`?([\w@./-]+)`?\s+(?:with|by)|from\s+`?([\w@./-]+)`?\s+to)\b", re.IGNORECASE)


def _replaces_other(text: str, dropped: str) -> bool:
    """Whether the sentence says what it replaces, and that is not the dropped name: its
    replacement is that thing's, not this one's."""
    found = _REPLACES.search(text)
    return found is not None and fold(found[1] or found[2]) != fold(dropped)


def _position(text: str, name: str) -> int | None:
    found = re.search(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-])", text.lower())
    return None if found is None else found.start()


def _said_use(text: str, dropped: str) -> str | None:
    """The name a sentence says is used from now on, if it says one (not the dropped name, nor
    the replacement of something else it names: "replace tox with poethepoet")."""
    if _replaces_other(text, dropped):
        return None
    for found in _USE.finditer(text):
        word = found[1]
        if word.lower() not in _NOT_NAMES and word.lower() != dropped.lower():
            return word
    return None


def _classes(key: Key, episode: Episode) -> tuple[str, ...]:
    ecosystem, name = key
    classes = []
    bases = {group.rsplit(":", 1)[-1] if group.startswith("target:") else group for group in episode.groups}
    dev_files = bool(episode.paths) and all(map(_named_for_development, episode.paths))
    if bases and (all(map(_is_dev_group, bases)) or (dev_files and bases == {"main"})):
        classes.append("dev")
    if bases == {"build"}:
        classes.append("build")
    if ecosystems.get(ecosystem).is_backport(name):
        classes.append("backport")
    if episode.manifest_deleted or _member_deleted(episode.lost):
        classes.append("subproject")
    if _moved_out(name, episode.deleted_trees):
        classes.append("moved-out")
    return tuple(classes)


# A tool's plugin or preset by its name (`eslint-plugin-import`, `@babel/preset-env`,
# `jest-environment-jsdom`). Not a shared configuration (`eslint-config-standard`): a style guide
# chosen, dropped by a choice of its own (5 of the 6 such candidates over A–G were decisions).
_PLUGIN = re.compile(r"(?<![a-z])(?:plugins?|preset|environment|loader|reporter|contrib)(?![a-z])", re.IGNORECASE)


def _member_deleted(lost: Iterable[tuple[str, bool]]) -> bool:
    """Whether the name went with a member's manifest deleted whole, the others that lost it being in
    folders above that one (a workspace's root declaring it for the member: Cargo's
    `[workspace.dependencies]`), not beside it (setup.py deleted for the pyproject.toml next to it)."""
    lost = list(lost)
    deleted = [path.rpartition("/")[0] for path, gone in lost if gone]
    kept = [path.rpartition("/")[0] for path, gone in lost if not gone]
    return bool(deleted) and bool(kept) and all(
        any(folder != root and (not root or folder.startswith(f"{root}/")) for folder in deleted) for root in kept)


def _moved_out(name: str, deleted_trees: Iterable[str]) -> bool:
    """The removing commit deleted the package's own folder (`packages/plugin-vue/` for
    `@vitejs/plugin-vue`): its code left the repository with it, to live elsewhere."""
    own = name.rsplit("/", 1)[-1].lower()
    return any(tree.rsplit("/", 1)[-1].lower() == own for tree in deleted_trees if tree)


def _named_for_development(path: str) -> bool:
    """A manifest whose name gives its declarations' group says it is for tooling (requirements-dev.txt)."""
    kind = kind_of(path)
    return kind is not None and ecosystems.document(kind).group_in_name and \
        _DEV_WORDS.search(path.rsplit("/", 1)[-1]) is not None


def _is_dev_group(group: str) -> bool:
    """devDependencies, dev-dependencies, tests_require, or an extra or group named for tooling."""
    kind, _, label = group.partition(":")
    return group in ("dev", "test") or (kind in ("extra", "group") and _DEV_WORDS.search(label) is not None)


def _instant(iso: str) -> datetime:
    return datetime.fromisoformat(iso)


def _days_between(start: str, end: str) -> int:
    return max(0, (_instant(end) - _instant(start)).days)


