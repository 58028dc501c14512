"""spaCy is loaded without its command line, and its command line still imports afterwards."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import REPO

PROBE = """
import json, sys
from cenotaph.nlp.analysis import Analyzer
analysis = Analyzer().analyze("We switched away from requests and use httpx now")
loaded = {name: name in sys.modules for name in ("spacy", "spacy.cli", "typer", "weasel")}
import spacy.cli
about = spacy.info(silent=True)
print(json.dumps({"loaded": loaded, "lemmas": analysis.lemmas, "concepts": [c for c, _ in analysis.concepts],
                  "cli": hasattr(spacy.cli, "download"), "version": about["spacy_version"]}))
"""


def test_the_analyzer_loads_spacy_without_its_command_line():
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO, capture_output=True, text=True, timeout=120,
                          check=True)
    out = json.loads(done.stdout)
    assert out["loaded"] == {"spacy": True, "spacy.cli": False, "typer": False, "weasel": False}
    # The pipeline works as before: lemmas, and the sentence's concepts.
    assert out["lemmas"] == "we switch away from request and use httpx now"
    assert {"request", "httpx"} <= set(out["concepts"])
    # And the real command line is there for whoever imports it later.
    assert out["cli"] is True and out["version"].startswith("3.")
