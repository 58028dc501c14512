"""Normalization of package, tool and image names: the one key the graveyard, the detectors
and the suppressions agree on."""

from __future__ import annotations

import re
from typing import Final

ECOSYSTEMS: Final = ("pypi", "npm", "cargo", "go", "container", "apt", "apk", "conda", "tool", "other")
# Recorded when neither the name's spelling nor the workspace's manifests tell: its key is the
# folded name, which every ecosystem's lookup includes, so the record matches in any of them.
ANY_ECOSYSTEM: Final = "any"

_SEPARATORS = re.compile(r"[-_.]+")

# Python import names whose distribution is called something else. Keyed by the folded import
# name; the value is the PEP 503 name of the distribution.
PYTHON_IMPORT_ALIASES: Final[dict[str, str]] = {
    "yaml": "pyyaml",
    "cv2": "opencv-python",
    "sklearn": "scikit-learn",
    "skimage": "scikit-image",
    "pil": "pillow",
    "bs4": "beautifulsoup4",
    "dateutil": "python-dateutil",
    "dotenv": "python-dotenv",
    "jwt": "pyjwt",
    "attr": "attrs",
    "magic": "python-magic",
    "serial": "pyserial",
    "crypto": "pycryptodome",
    "openssl": "pyopenssl",
    "docx": "python-docx",
    "pptx": "python-pptx",
    "git": "gitpython",
    "fitz": "pymupdf",
    "usb": "pyusb",
    "zmq": "pyzmq",
    "mysqldb": "mysqlclient",
    "win32api": "pywin32",
    "websocket": "websocket-client",
    "jose": "python-jose",
    "multipart": "python-multipart",
    "faiss": "faiss-cpu",
    "google-protobuf": "protobuf",
    "sqlean": "sqlean-py",
    "pysqlite3": "pysqlite3-binary",
    "llama-cpp": "llama-cpp-python",
}


def fold(name: str) -> str:
    """The comparison key of any name: lower case, runs of '-', '_' and '.' folded to '-'
    (PEP 503 for PyPI, and the same equivalence crates.io applies to '-' and '_')."""
    return _SEPARATORS.sub("-", name.strip()).lower()


def image_name(reference: str) -> str:
    """`docker.io/library/python:3.12-alpine@sha256:…` → `python`; keeps a registry or owner
    that is not Docker Hub's implicit one (`ghcr.io/acme/tool`)."""
    ref = reference.strip().split("@", 1)[0]
    last_slash = ref.rfind("/")
    colon = ref.rfind(":")
    if colon > last_slash:
        ref = ref[:colon]
    for prefix in ("docker.io/library/", "index.docker.io/library/", "library/", "docker.io/"):
        if ref.startswith(prefix):
            ref = ref[len(prefix):]
            break
    return ref.lower()


def normalize(name: str, ecosystem: str | None = None) -> str:
    """The graveyard's key for `name` in `ecosystem`: PEP 503 for PyPI (with import-name
    aliases resolved to their distribution), npm names as written with their scope, Go module
    paths as written, image references without tag or digest, everything else folded."""
    name = name.strip()
    if ecosystem == "npm":
        return name.lower()
    if ecosystem == "go":
        return name
    if ecosystem == "container":
        return image_name(name)
    key = fold(name)
    if ecosystem in (None, "pypi"):
        key = PYTHON_IMPORT_ALIASES.get(key, key)
    return key


def lookup_keys(name: str, ecosystem: str | None = None) -> tuple[str, ...]:
    """Every key under which `name` may have been abandoned: its normalized form, its folded
    form, and the distribution a Python import name stands for."""
    keys = [normalize(name, ecosystem), fold(name)]
    if ecosystem == "container":
        keys.append(fold(image_name(name)))
    alias = PYTHON_IMPORT_ALIASES.get(fold(name))
    if alias:
        keys.append(alias)
    return tuple(dict.fromkeys(k for k in keys if k))


_IMPORT_NAMES_BY_DISTRIBUTION: Final[dict[str, tuple[str, ...]]] = {
    dist: tuple(sorted(a for a, d in PYTHON_IMPORT_ALIASES.items() if d == dist and a != dist))
    for dist in set(PYTHON_IMPORT_ALIASES.values())
}


def aliases_for(name: str) -> tuple[str, ...]:
    """Import names known to stand for the distribution `name` (e.g. `pyyaml` → `yaml`)."""
    return _IMPORT_NAMES_BY_DISTRIBUTION.get(fold(name), ())


def go_module_prefixes(path: str) -> list[str]:
    """The modules a Go import path may belong to, longest first: the path itself, then each
    prefix ending at a '/' (`github.com/a/b/sub` → `github.com/a/b/sub`, `github.com/a/b`,
    `github.com/a`). Never a partial segment, so `github.com/a/bc` is not in `github.com/a/b`;
    a major-version suffix (`/v2`) is a segment like any other."""
    prefixes = [path]
    end = len(path)
    # A module path has at least a host and one more element.
    while (end := path.rfind("/", 0, end)) > 0 and "/" in path[:end]:
        prefixes.append(path[:end])
    return prefixes

