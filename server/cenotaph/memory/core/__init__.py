"""The memory core: writing a memory (remember), reading them back (recall, why), their lifecycle
(visibility, pruning), belief (trust), contradictions, time (versions, as-of reads), the concepts
each memory is about, and the hash-chained audit log. Every other capability builds on these."""
