"""The graveyard: approaches abandoned in a project or everywhere (their reasons, efforts and
replacements, reinstatements), and the suppressions that silence a name in editors or recall.
Reads the team folder for the entries shared in a repository."""
