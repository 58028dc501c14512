"""The domain, with no protocol imports. `service.Memory` is its one front door: the CLI, the
language server and the MCP server call its methods and nothing else here.

The rooms (docs/architecture.md draws them): the kernel at this level (errors, models, context,
validate, secrets, proposals), then one package per capability, each importing only those below
it: team → graveyard → core → knowledge · mining · policy · operations."""
