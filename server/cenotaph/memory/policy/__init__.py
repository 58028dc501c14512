"""Policy: lessons learned from the memories, and the compiler that renders the reinforced ones
into the files agents and CI read (Agent Skills, instruction files, lint rules) behind a gate."""
