"""Team sharing with the real `cenotaph` command and real git (issue 14): what one person shares
and pushes, a teammate with another store pulls and gets, and two people sharing different names
never meet a merge conflict."""

from __future__ import annotations

import pytest

from tests.team import team

# Each teammate has a store of their own (tests/team.py): what they share is the repository.
pytestmark = pytest.mark.sqlite_only("every teammate keeps a store of their own; the repository is what is shared")

ONNX = ".cenotaph/graveyard/pypi/onnxruntime.toml"


def test_abandon_share_push_pull_and_the_teammate_checks_it_abandoned_from_the_repo(tmp_path, cli_env):
    ada, grace = team(tmp_path, cli_env, "Ada Lovelace", "Grace Hopper")
    out = ada.cenotaph("abandon", "onnxruntime", "--reason", "SIGILL on Alpine musl", "--share").stdout
    assert f"shared {ONNX}" in out
    assert (ada.root / ONNX).is_file()
    (before,) = grace.cenotaph_json("check", "onnxruntime")["results"]
    assert before["status"] == "clear"  # positive control: nothing before the pull
    ada.publish("Share: onnxruntime is a dead end")
    grace.git("pull", "-q", "--no-rebase", "origin", "main")

    (verdict,) = grace.cenotaph_json("check", "onnxruntime")["results"]
    assert verdict["status"] == "abandoned" and verdict["source"] == "repo"
    assert verdict["approach"]["reason"] == "SIGILL on Alpine musl"
    assert verdict["approach"]["actor"] == "Ada Lovelace" and verdict["approach"]["path"] == ONNX
    text = grace.cenotaph("check", "onnxruntime").stdout
    assert "shared in the repository by Ada Lovelace" in text
    # Grace's store holds none of it: the file is the record.
    assert grace.cenotaph_json("audit", "log")["events"] == []

    # Deleting the file (and pulling that) removes the entry.
    ada.git("rm", "-q", ONNX)
    ada.git("commit", "-q", "-m", "onnxruntime works on Alpine now")
    ada.git("push", "-q", "origin", "HEAD:main")
    grace.git("pull", "-q", "--no-rebase", "origin", "main")
    assert grace.cenotaph_json("check", "onnxruntime")["results"][0]["status"] == "clear"


def test_two_people_share_different_names_and_merge_without_a_conflict(tmp_path, cli_env):
    ada, grace = team(tmp_path, cli_env, "Ada Lovelace", "Grace Hopper")
    ada.cenotaph("abandon", "requests", "--reason", "blocking I/O in the event loop", "--share")
    grace.cenotaph("abandon", "@acme/left-pad", "--reason", "unpublished twice", "--share")
    grace.cenotaph("remember", "Releases are tagged from main only", "--kind", "decision", "--share")
    ada.publish("Share: requests")
    grace.publish("Share: left-pad and the release rule")  # pulls Ada's commit first: a clean merge
    ada.git("pull", "-q", "--no-rebase", "origin", "main")
    for clone in (ada, grace):
        assert clone.git("status", "--porcelain") == ""
        assert sorted(p.relative_to(clone.root).as_posix() for p in (clone.root / ".cenotaph").rglob("*.toml")) == [
            ".cenotaph/graveyard/npm/@acme/left-pad.toml", ".cenotaph/graveyard/pypi/requests.toml"]
    # Each sees the other's as shared in the repository, and their own record first.
    requests, left_pad = ada.cenotaph_json("check", "requests", "@acme/left-pad")["results"]
    assert (requests["status"], requests["source"], [a["source"] for a in requests["also"]]) == (
        "abandoned", "store", ["repo"])
    assert (left_pad["status"], left_pad["source"], left_pad["approach"]["actor"]) == (
        "abandoned", "repo", "Grace Hopper")
    recalled = ada.cenotaph_json("recall", "where are releases tagged from")["results"]
    assert recalled[0]["source"] == "repo" and recalled[0]["actor"] == "Grace Hopper"


def test_doctor_reports_a_malformed_shared_file_and_the_others_still_work(tmp_path, cli_env):
    (ada,) = team(tmp_path, cli_env, "Ada Lovelace")
    ada.cenotaph("abandon", "onnxruntime", "--reason", "SIGILL on Alpine musl", "--share")
    broken = ada.root / ".cenotaph/graveyard/pypi/torch.toml"
    broken.write_text('format = 2\nname = "torch"\n', encoding="utf-8")
    doctor = ada.cenotaph("doctor", check=False)
    assert doctor.returncode == 1
    assert ".cenotaph/graveyard/pypi/torch.toml:1: unknown format version 2" in doctor.stdout
    assert "1 approaches" in doctor.stdout
    verdict = ada.cenotaph_json("check", "onnxruntime")["results"][0]
    assert verdict["status"] == "abandoned"
    broken.unlink()
    assert ada.cenotaph("doctor", check=False).returncode == 0


def test_unshare_and_experience_share(tmp_path, cli_env):
    (ada,) = team(tmp_path, cli_env, "Ada Lovelace")
    out = ada.cenotaph_json("experience", "--summary", "Tried three ONNX runtimes on Alpine", "--outcome", "failed",
                            "--effort", "3", "--abandoned", "onnxruntime=SIGILL on musl", "--share")
    paths = sorted(s["path"] for s in out["shared"])
    assert paths[0] == ONNX and paths[1].startswith(".cenotaph/memories/tried-three-onnx-runtimes-on-alpine-")
    ada.cenotaph("unshare", "onnxruntime")
    ada.cenotaph("unshare", paths[1].rsplit("/", 1)[1])
    assert not (ada.root / ".cenotaph").exists()
    missing = ada.cenotaph("unshare", "onnxruntime", check=False)
    assert missing.returncode == 2 and "target" in missing.stderr
