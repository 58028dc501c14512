"""Which ecosystem a workspace declares a name in, read from the manifests at its root by the
same scanners that flag declarations in the editor (`cenotaph.nlp.detect`)."""

from __future__ import annotations

import logging
from pathlib import Path

from cenotaph.nlp import names
from cenotaph.nlp.detect import detect, document_kind

log = logging.getLogger(__name__)

# Manifest kinds by the ecosystem they declare, the non-Python ones first: a name a JavaScript
# workspace declares is an npm package even where a pyproject.toml sits beside package.json.
MANIFEST_KINDS = ("package_json", "cargo_toml", "go_mod", "pyproject", "requirements")
MAX_MANIFEST_BYTES = 2_000_000


def _manifests(root: Path) -> list[Path]:
    try:
        files = [p for p in root.iterdir() if p.is_file() and document_kind(p.name) in MANIFEST_KINDS]
    except OSError:
        return []
    return sorted(files, key=lambda p: (MANIFEST_KINDS.index(document_kind(p.name) or ""), p.name))


def declared_ecosystem(name: str, root: Path) -> str | None:
    """The ecosystem of the first manifest at `root` that declares `name` as a dependency, or
    None when none does."""
    folded = names.fold(name)
    for path in _manifests(root):
        try:
            if path.stat().st_size > MAX_MANIFEST_BYTES:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            log.debug("manifest %s: %s", path, exc)
            continue
        for mention in detect(str(path), text):
            if mention.kind == "declaration" and (mention.key == names.normalize(name, mention.ecosystem)
                                                  or names.fold(mention.name) == folded):
                return mention.ecosystem
    return None
