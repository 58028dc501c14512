"""`cenotaph lint`: the graveyard in CI and pre-commit. Exit 1 on findings, 0 when clean, 2 on a
usage error; text, JSON or SARIF 2.1.0 (one rule per abandoned approach, for code scanning)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

from cenotaph import __version__
from cenotaph.cli.parsing import Subcommands

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# What RFC 3986 lets a relative reference's path hold as it is (its `pchar`s and '/', but ':',
# which in a first segment would read as a scheme): the rest is percent-encoded as UTF-8.
_PATH_CHARACTERS = "/-._~!$&'()*+,;=@"


def cmd_lint(args: argparse.Namespace) -> int:
    from cenotaph.app import open_enforcer
    from cenotaph.memory.errors import CenotaphError
    from cenotaph.memory.graveyard.enforce import EMPTY_GRAVEYARD
    from cenotaph.memory.graveyard.lint import lint
    from cenotaph.store.connect import StoreUnavailable

    start = Path.cwd()
    try:
        enforcer = open_enforcer(start, db=args.db, project=args.project)
        try:
            report = lint(enforcer, start, [Path(p) for p in args.paths], base=args.base, staged=args.staged)
        finally:
            enforcer.close()
    except (CenotaphError, StoreUnavailable) as exc:
        sys.stderr.write(f"cenotaph lint: error: {exc}\n")
        return 2
    if not report.abandoned:
        # A CI runner's store, or a clone before anything was shared: every file passes, which
        # must not look like a clean repository.
        sys.stderr.write(f"cenotaph lint: {EMPTY_GRAVEYARD}, so nothing can be flagged; "
                         "share what the team abandoned with `cenotaph share NAME`\n")
        if args.require_graveyard:
            sys.stderr.write("cenotaph lint: error: --require-graveyard: no graveyard to check against\n")
            return 2
    if args.format == "sarif":
        _write_json(sarif(report))
    elif args.format == "json" or args.json:
        _write_json({"root": report.root, "files": report.files,
                     "findings": [_finding_json(f, fingerprint)
                                  for f, fingerprint in zip(report.findings, report.fingerprints, strict=True)]})
    else:
        for f in report.findings:
            n = f.named
            sys.stdout.write(f"{n.path}:{n.line + 1}:{n.start + 1}: {n.name} ({n.kind}): {f.message()}\n")
        sys.stderr.write(f"cenotaph lint: {len(report.findings)} finding(s) in {report.files} file(s)\n")
    return 1 if report.findings else 0


def _write_json(value: Any) -> None:
    """One compact write: json.dump and indent both take the pure-Python encoder, seconds for
    thousands of findings; json.dumps without indent takes the C one."""
    sys.stdout.write(json.dumps(value, ensure_ascii=False) + "\n")


def _finding_json(finding, fingerprint: str) -> dict[str, Any]:
    n, a = finding.named, finding.approach
    return {"fingerprint": fingerprint, "path": n.path, "line": n.line + 1, "column": n.start + 1, "end_column": n.end + 1, "name": n.name,
            "ecosystem": n.ecosystem, "kind": n.kind, "scope": finding.scope, "message": finding.message(),
            "approach": {"name": a.name, "display_name": a.display_name, "ecosystem": a.ecosystem,
                         "reason": a.reason, "effort": a.effort}}


def rule_id(finding) -> str:
    return f"abandoned/{finding.approach.ecosystem}/{finding.approach.name}"


def sarif(report) -> dict[str, Any]:
    """SARIF 2.1.0: one rule per abandoned approach (its reason the help text), one result per
    finding with its exact region (columns in UTF-16 code units, as the detectors count)."""
    rules: dict[str, dict[str, Any]] = {}
    results = []
    for f, fingerprint in zip(report.findings, report.fingerprints, strict=True):
        a, n = f.approach, f.named
        rid = rule_id(f)
        if rid not in rules:
            lift = (f"A person lifts it with `cenotaph reinstate-approach {a.name} --reason …`, or silences it with "
                    f"`cenotaph suppress {a.name} --kind diagnostic --reason …`.")
            rules[rid] = {
                "id": rid, "name": f"Abandoned{''.join(p.capitalize() for p in a.name.replace('/', '-').split('-'))}",
                "shortDescription": {"text": f"{a.display_name} ({a.ecosystem}) was abandoned"},
                "fullDescription": {"text": a.reason},
                "help": {"text": f"{a.reason}\n\n{lift}", "markdown": f"{a.reason}\n\n{lift}"},
                "defaultConfiguration": {"level": "error" if f.scope == "project" else "warning"},
                "properties": {"tags": ["cenotaph", "graveyard", a.ecosystem],
                               **({"effort": a.effort} if a.effort else {})},
            }
        results.append({
            "ruleId": rid, "ruleIndex": list(rules).index(rid),
            "level": rules[rid]["defaultConfiguration"]["level"],
            "message": {"text": f.message()},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": quote(n.path, safe=_PATH_CHARACTERS), "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": n.line + 1, "startColumn": n.start + 1, "endColumn": n.end + 1},
            }}],
            "partialFingerprints": {"cenotaph/v2": fingerprint},
        })
    return {
        "$schema": SARIF_SCHEMA, "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "cenotaph", "version": __version__, "rules": list(rules.values())}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": Path(report.root).as_uri() + "/"}},
            "columnKind": "utf16CodeUnits",
            "results": results,
        }],
    }


def lint(commands: Subcommands) -> None:
    p = commands.parsers.add_parser(
        "lint", parents=[commands.common], help="check a repository's manifests and source against the graveyard",
        description="Check every manifest and source file under PATH (default: here; in git, the files git tracks "
                    "or would add, so .gitignore holds) against the graveyard, with the editor's detectors. Exit 1 "
                    "on findings, 0 when clean, 2 on a usage error.")
    p.add_argument("paths", nargs="*", metavar="PATH")
    p.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    views = p.add_mutually_exclusive_group()
    views.add_argument("--base", metavar="REV", help="report only what each file adds since REV (a pull request's view)")
    views.add_argument("--staged", action="store_true",
                       help="report only what the staged change adds: the files as the index holds them, against "
                            "HEAD (pre-commit's view; a moved file is compared with its old self)")
    p.add_argument("--require-graveyard", action="store_true",
                   help="exit 2 when the graveyard is empty (a CI runner's store with nothing shared in .cenotaph/) "
                        "instead of passing with a notice")
    p.set_defaults(handler=None, entry="cenotaph.cli.commands.enforce", direct=cmd_lint)
