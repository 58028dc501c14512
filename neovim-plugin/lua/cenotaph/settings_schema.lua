-- Generated from shared_schema/settings.schema.json by scripts/gen_settings.py: do not edit.
-- The server's settings as setup() validates `opts.settings`.
return {
  type = "object",
  keys = { "severity", "otherProjects", "fileKinds", "maxFileSize", "documents", "feeds", "mine" },
  properties = {
    severity = {
      type = "object",
      keys = { "project", "global", "otherProject", "mention", "instruction" },
      properties = {
        project = {
          type = "string",
          enum = { "error", "warning", "information", "hint", "off" },
          default = "warning",
        },
        global = {
          type = "string",
          enum = { "error", "warning", "information", "hint", "off" },
          default = "information",
        },
        otherProject = {
          type = "string",
          enum = { "error", "warning", "information", "hint", "off" },
          default = "information",
        },
        mention = {
          type = "string",
          enum = { "error", "warning", "information", "hint", "off" },
          default = "hint",
        },
        instruction = {
          type = "string",
          enum = { "error", "warning", "information", "hint", "off" },
          default = "warning",
        },
      },
    },
    otherProjects = {
      type = "boolean",
      default = false,
    },
    fileKinds = {
      type = "array",
      uniqueItems = true,
      default = { "python", "javascript", "go", "rust", "requirements", "pyproject", "package_json", "cargo_toml", "go_mod", "setup_py", "setup_cfg", "tox_ini", "pipfile", "environment_yml", "pre_commit", "dockerfile", "markdown", "restructuredtext", "plaintext", "instructions" },
      items = {
        type = "string",
        enum = { "python", "javascript", "go", "rust", "requirements", "pyproject", "package_json", "cargo_toml", "go_mod", "setup_py", "setup_cfg", "tox_ini", "pipfile", "environment_yml", "pre_commit", "dockerfile", "markdown", "restructuredtext", "plaintext", "instructions" },
      },
    },
    maxFileSize = {
      type = "integer",
      minimum = 1024,
      maximum = 100000000,
      default = 2000000,
    },
    documents = {
      type = "object",
      keys = { "include" },
      properties = {
        include = {
          type = "array",
          default = { "README.md", "docs/**/*.md", "**/adr/**/*.md", "ARCHITECTURE.md" },
          items = {
            type = "string",
          },
        },
      },
    },
    feeds = {
      type = "object",
      keys = { "interval" },
      properties = {
        interval = {
          type = "number",
          minimum = 0,
          maximum = 8760,
          default = 6,
        },
      },
    },
    mine = {
      type = "object",
      keys = { "onOpen" },
      properties = {
        onOpen = {
          type = "boolean",
          default = false,
        },
      },
    },
  },
}
