import pytest

from app import fetch


def test_fetch_needs_a_url():
    with pytest.raises(Exception):
        fetch("")
