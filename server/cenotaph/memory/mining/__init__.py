"""Mining the past for graveyard candidates: a repository's git history (history.py reads it,
git.py judges it) and agent transcripts. Candidates become proposals a person accepts or rejects."""
