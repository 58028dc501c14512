"""Lessons: what the memory has learned that deserves to become policy, and which of it is
reinforced enough to be compiled. No model writes anything here: lessons are the memories' own
words, grouped by embedding and named by their most frequent terms, in a deterministic order.

* A successful experience's breakthrough and a confirmed decision say "Do"; a gotcha says
  "Watch out"; a graveyard entry says "Don't".
* A lesson is reinforced when at least two distinct source memories support it (sources that
  are near-duplicates of each other count once), when a person blessed one of its sources, when
  it is a graveyard entry of effort 3 or more, or when it is a decision a person confirmed.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from cenotaph.memory import validate
from cenotaph.memory.context import Context
from cenotaph.memory.errors import Conflict, NotFound
from cenotaph.memory.models import Actor
from cenotaph.nlp import ecosystems, names
from cenotaph.project import display_name
from cenotaph.store import approaches, blessings, memories, vectors
from cenotaph.store.memories import Scope
from cenotaph.store.records import ApproachRow, MemoryRow

LessonKind = Literal["do", "watch_out", "dont"]
KIND_ORDER: tuple[LessonKind, ...] = ("do", "watch_out", "dont")

# Two texts this close say the same thing: the threshold `remember` refuses near-duplicates at.
SAME_LESSON = 0.92
# A lesson joins the topic whose centroid is at least this close; topics with fewer lessons than
# MIN_SKILL_LESSONS merge into their nearest neighbour (a skill of one rule is not worth a file).
SAME_TOPIC = 0.45
MIN_SKILL_LESSONS = 3
# A graveyard entry that cost this much is reinforced by its cost alone.
REINFORCING_EFFORT = 3
MAX_RULE_TEXT = 300  # characters of a rule: a lesson is a line, its memory has the rest
NAME_TERMS = 3
MAX_SKILL_NAME = 64

_WHITESPACE = re.compile(r"\s+")
_WORD = re.compile(r"[\w@/.+-]+")
# `name`, or a dotted name's module and attribute (the attribute tells a file's name, `setup.py`, apart).
_CODE_NAME = re.compile(r"`([A-Za-z0-9@][\w@/.\-]*)`|(?<![\w./-])([A-Za-z_][\w-]*)\.([A-Za-z_]\w*)")
_FILE_SUFFIXES = frozenset({"py", "js", "ts", "tsx", "jsx", "md", "txt", "toml", "json", "yaml", "yml", "lock", "cfg",
                            "ini", "rs", "go", "mod", "sh", "html", "css"})
_SKILL_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True, slots=True)
class Source:
    """A memory that supports a lesson, and the day it was recorded."""

    memory_id: int
    date: str


@dataclass(slots=True)
class Lesson:
    key: str  # stable across compiles while the lesson says the same thing
    kind: LessonKind
    text: str
    sources: list[Source]
    reinforced: bool
    reinforced_by: list[str]  # "recurrence", "blessing", "effort", "confirmed decision"
    approach: ApproachRow | None = None  # "dont" lessons: the graveyard record

    @property
    def memory_ids(self) -> list[int]:
        return [s.memory_id for s in self.sources]


@dataclass(slots=True)
class Skill:
    """Lessons on one topic: an embedding cluster, named after the project and what its lessons
    are about (or what a person renamed that name to)."""

    name: str
    subject: str  # "python dependencies", "httpx", "pitfalls"
    terms: list[str]  # the names the lessons concern, most shared first
    lessons: list[Lesson] = field(default_factory=list)
    derived: str = ""  # the name before a person's rename: the key the rename is kept under


@dataclass(slots=True)
class _Candidate:
    kind: LessonKind
    text: str
    row: MemoryRow


def _one_line(text: str) -> str:
    line = _WHITESPACE.sub(" ", text).strip()
    return line if len(line) <= MAX_RULE_TEXT else line[: MAX_RULE_TEXT - 1].rstrip() + "…"


def _normalized(text: str) -> str:
    return _one_line(text).casefold().rstrip(".!;:")


def _key(kind: str, identity: str) -> str:
    return hashlib.sha256(f"{kind}\0{identity}".encode("utf-8", "surrogatepass")).hexdigest()[:12]


def _day(moment: str | None) -> str:
    return (moment or "")[:10]


def _unit(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


class _UnionFind:
    def __init__(self, size: int) -> None:
        self.parent = list(range(size))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:  # the lower index is the root: groups keep their first member's order
            self.parent[max(ra, rb)] = min(ra, rb)


def _near_groups(vectors_: np.ndarray, threshold: float) -> list[list[int]]:
    """Indices grouped so that any two within `threshold` cosine end in one group, in first-seen order."""
    count = len(vectors_)
    found = _UnionFind(count)
    if count:
        unit = _unit(vectors_)
        similar = unit @ unit.T
        for i in range(count):
            for j in range(i + 1, count):
                if similar[i, j] >= threshold:
                    found.union(i, j)
    groups: dict[int, list[int]] = {}
    for i in range(count):
        groups.setdefault(found.find(i), []).append(i)
    return list(groups.values())


def bless(ctx: Context, actor: Actor, memory_id: int, *, reason: str | None) -> MemoryRow:
    """A person vouches for a memory: its lessons are compiled without waiting to recur."""
    memory_id = validate.integer(memory_id, "memory_id", low=1, high=2**62)
    reason = validate.optional_text(reason, "reason")
    if actor.kind != "human":
        raise Conflict("only a person can bless a memory", field="actor")
    with ctx.store.write() as tx:
        row = memories.current(tx, memory_id)
        if row is None or row.state == "deleted":
            raise NotFound(f"no memory #{memory_id}", field="memory_id")
        if blessings.add(tx, memory_id=memory_id, project=row.project, reason=reason, actor=actor.name, at=ctx.now()):
            ctx.event(tx, actor=actor.name, action="bless", target=f"memory:{memory_id}", project=row.project,
                      after={"blessed": True}, reason=reason)
    return row


def gather(ctx: Context, project: str) -> list[Lesson]:
    """Every lesson of `project` (and of the global scope), reinforced or not, in a stable order."""
    project = validate.project(project)
    scopes = tuple(dict.fromkeys((project, "")))
    with ctx.store.read() as conn:
        rows = memories.list_rows(conn, Scope(projects=scopes, states=("active",), kinds=("experience", "decision")),
                                  limit=100_000, order="m.memory_id")
        graveyard = [a for a in approaches.all_rows(conn, status="abandoned") if a.project in scopes]
        sources = {r.memory_id for r in rows} | {a.memory_id for a in graveyard if a.memory_id is not None}
        blessed = blessings.blessed_among(conn, sources)
        stored = {r.id: vectors.get(conn, r.id) for r in rows} if ctx.vectors_current() else {}
    lessons = _from_memories(ctx, rows, blessed, stored) + _from_graveyard(graveyard, blessed)
    return sorted(lessons, key=lambda l: (KIND_ORDER.index(l.kind), l.sources[0].memory_id if l.sources else 0,
                                          l.key))


def reinforced(ctx: Context, project: str) -> list[Lesson]:
    return [lesson for lesson in gather(ctx, project) if lesson.reinforced]


def _from_memories(ctx: Context, rows: list[MemoryRow], blessed: set[int],
                   stored: dict[int, np.ndarray | None]) -> list[Lesson]:
    candidates: list[_Candidate] = []
    lessons: list[Lesson] = []
    for row in rows:
        if row.kind == "experience":
            if row.outcome == "success" and row.breakthrough and row.breakthrough.strip():
                candidates.append(_Candidate("do", _one_line(row.breakthrough), row))
            candidates += [_Candidate("watch_out", _one_line(g), row) for g in row.gotchas if g.strip()]
        elif row.kind == "decision" and (row.trust == "confirmed" or row.memory_id in blessed):
            why = ["confirmed decision"] if row.trust == "confirmed" else []
            why += ["blessing"] if row.memory_id in blessed else []
            lessons.append(Lesson(key=_key("do", f"decision:{row.memory_id}"), kind="do", text=_one_line(row.content),
                                  sources=[Source(row.memory_id, _day(row.valid_from))], reinforced=True,
                                  reinforced_by=why))
    if not candidates:
        return lessons
    # Same lesson: the same words, or texts of one kind within SAME_LESSON of each other.
    texts = sorted({(c.kind, _normalized(c.text)) for c in candidates})
    text_vectors = ctx.embedder.embed([t for _, t in texts])
    by_kind: dict[str, list[int]] = {}
    for i, (kind, _) in enumerate(texts):
        by_kind.setdefault(kind, []).append(i)
    group_of: dict[tuple[str, str], int] = {}
    for indices in by_kind.values():
        for group in _near_groups(np.asarray([text_vectors[i] for i in indices]), SAME_LESSON):
            for member in group:
                group_of[texts[indices[member]]] = indices[group[0]]
    grouped: dict[int, list[_Candidate]] = {}
    for c in candidates:
        grouped.setdefault(group_of[(c.kind, _normalized(c.text))], []).append(c)
    missing = [c.row for c in candidates if stored.get(c.row.id) is None]
    if missing:
        embedded = ctx.embedder.embed([r.content for r in missing])
        stored = {**stored, **{r.id: v for r, v in zip(missing, embedded, strict=True)}}
    for members in grouped.values():
        by_memory = {c.row.memory_id: c.row for c in members}
        support = sorted(by_memory.values(), key=lambda r: r.memory_id)
        # Sources that are near-duplicates of each other are one source told twice.
        distinct = len(_near_groups(np.asarray([stored[r.id] for r in support]), SAME_LESSON))
        why = (["recurrence"] if distinct >= 2 else []) + (["blessing"] if by_memory.keys() & blessed else [])
        first = min(members, key=lambda c: (c.row.memory_id, c.text))
        lessons.append(Lesson(key=_key(first.kind, _normalized(first.text)), kind=first.kind, text=first.text,
                              sources=[Source(r.memory_id, _day(r.valid_from)) for r in support],
                              reinforced=bool(why), reinforced_by=why))
    return lessons


def _from_graveyard(graveyard: list[ApproachRow], blessed: set[int]) -> list[Lesson]:
    lessons = []
    chosen: dict[str, ApproachRow] = {}
    for approach in sorted(graveyard, key=lambda a: (a.project == "", a.id)):  # the project's own record first
        chosen.setdefault(approach.name, approach)
    for approach in sorted(chosen.values(), key=lambda a: a.id):
        why = (["effort"] if (approach.effort or 0) >= REINFORCING_EFFORT else [])
        why += ["blessing"] if approach.memory_id in blessed else []
        sources = [Source(approach.memory_id, _day(approach.created_at))] if approach.memory_id is not None else []
        lessons.append(Lesson(key=_key("dont", f"{approach.ecosystem}:{approach.name}"), kind="dont",
                              text=f"{approach.display_name} — {_one_line(approach.reason)}", sources=sources,
                              reinforced=bool(why), reinforced_by=why, approach=approach))
    return lessons


# --- topics ------------------------------------------------------------------------------------------


def _embedding_text(lesson: Lesson) -> str:
    return f"Don't use {lesson.text}" if lesson.kind == "dont" else lesson.text


def topics(ctx: Context, lessons: list[Lesson], project: str,
           renames: dict[str, str] | None = None) -> list[Skill]:
    """Lessons grouped by embedding into skills, each named `<project>-<subject>` (see _subject),
    unless `renames` maps that name to the one a person chose."""
    renames = renames or {}
    if not lessons:
        return []
    unit = _unit(np.asarray(ctx.embedder.embed([_embedding_text(l) for l in lessons])))
    clusters: list[list[int]] = []
    for i in range(len(lessons)):
        best, best_similarity = None, SAME_TOPIC
        for c, members in enumerate(clusters):
            similarity = float(_unit(unit[members].mean(axis=0)) @ unit[i])
            if similarity >= best_similarity:
                best, best_similarity = c, similarity
        if best is None:
            clusters.append([i])
        else:
            clusters[best].append(i)
    while len(clusters) > 1 and min(len(m) for m in clusters) < MIN_SKILL_LESSONS:
        small = max(range(len(clusters)), key=lambda c: (-len(clusters[c]), c))  # the smallest, the latest
        centroid = _unit(unit[clusters[small]].mean(axis=0))
        others = [c for c in range(len(clusters)) if c != small]
        target = max(others, key=lambda c: (float(_unit(unit[clusters[c]].mean(axis=0)) @ centroid), -c))
        clusters[target] = sorted(clusters[target] + clusters[small])
        del clusters[small]
    named = [(sorted(members), _subject([lessons[i] for i in sorted(members)])) for members in clusters]
    skills = []
    taken: set[str] = set()
    prefix = _slug(display_name(project))
    for members, (subject, terms) in named:
        derived = _unique(_slug(f"{prefix}-{_slug(subject)}") or "project-lessons", taken)
        name = _unique(renames.get(derived, derived), taken)
        taken.add(name)
        skills.append(Skill(name=name, subject=subject, terms=terms, lessons=[lessons[i] for i in members],
                            derived=derived))
    return sorted(skills, key=lambda s: s.name)


def _code_subjects(text: str) -> list[str]:
    """The libraries a lesson's words name as code: `backticked` names and the module of a dotted
    name (`httpx.AsyncClient` → httpx), not a file's name (`setup.py`)."""
    found = [(m.group(1) or m.group(2)).split(".")[0] for m in _CODE_NAME.finditer(text)
             if m.group(1) or m.group(3).casefold() not in _FILE_SUFFIXES]
    return [names.fold(f) for f in found if len(f) >= 2]


def _subject(lessons: list[Lesson]) -> tuple[str, list[str]]:
    """What a topic is about, and the names it concerns. The names are the abandoned approaches
    and, in the other lessons, the libraries named as code or by a name the graveyard holds;
    never the words around them. Mostly graveyard entries: the project's dependencies (of one
    language when they share one). Else the name most lessons share; else the lessons' kind."""
    known = {names.fold(l.approach.name): l.approach.display_name for l in lessons if l.approach is not None}
    documents: Counter[str] = Counter()
    display: dict[str, str] = dict(known)
    for lesson in lessons:
        if lesson.approach is not None:
            mentioned = [names.fold(lesson.approach.name)]
        else:
            words = {names.fold(w.strip(".,;:")) for w in _WORD.findall(lesson.text)}
            mentioned = [k for k in known if k in words] + _code_subjects(lesson.text)
        for key in dict.fromkeys(mentioned):
            documents[key] += 1
            display.setdefault(key, key)
    ranked = sorted(documents, key=lambda k: -documents[k])  # ties: in the lessons' order
    terms = [display[k] for k in ranked[:NAME_TERMS]]
    donts = [l.approach for l in lessons if l.approach is not None]
    if 2 * len(donts) >= len(lessons):
        languages = {ecosystems.language(a.ecosystem) for a in donts}
        return (f"{languages.pop()} dependencies" if len(languages) == 1 else "dependencies"), terms
    if ranked and (documents[ranked[0]] >= 2 or len(ranked) == 1):
        return " and ".join(display[k] for k in ranked[:2] if documents[k] == documents[ranked[0]]), terms
    kinds = Counter(l.kind for l in lessons)
    return ("pitfalls" if kinds["watch_out"] > kinds["do"] else "practices"), terms


def _slug(text: str) -> str:
    """Lowercase letters, digits and single hyphens, at most 64 characters (the Agent Skills rule)."""
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-")[:MAX_SKILL_NAME].strip("-")


def _unique(slug: str, taken: set[str]) -> str:
    name, n = slug, 2
    while name in taken:
        suffix = f"-{n}"
        name = slug[: MAX_SKILL_NAME - len(suffix)].strip("-") + suffix
        n += 1
    return name


def valid_skill_name(name: str) -> bool:
    return len(name) <= MAX_SKILL_NAME and _SKILL_NAME.fullmatch(name) is not None
