--- Options of `require('cenotaph').setup()`: defaults and validation.
local M = {}

---@alias cenotaph.Severity 'error'|'warning'|'information'|'hint'|'off'
---@alias cenotaph.FileKind 'python'|'javascript'|'go'|'rust'|'requirements'|'pyproject'|'package_json'|'cargo_toml'|'go_mod'|'setup_py'|'setup_cfg'|'dockerfile'|'markdown'|'instructions'

---@class cenotaph.SeveritySettings
---@field project? cenotaph.Severity An approach abandoned in this project (default "warning").
---@field global? cenotaph.Severity An approach abandoned everywhere (default "information").
---@field otherProject? cenotaph.Severity An approach abandoned in another project (default "information").
---@field mention? cenotaph.Severity A plain mention in Markdown or an instruction file (default "hint").
---@field instruction? cenotaph.Severity An instruction-file line that recommends it (default "warning").

--- The server's settings (shared_schema/settings.schema.json).
---@class cenotaph.Settings
---@field severity? cenotaph.SeveritySettings
---@field otherProjects? boolean Also flag approaches abandoned in other projects.
---@field fileKinds? cenotaph.FileKind[] The kinds of document that are scanned.
---@field maxFileSize? integer Longer documents are not scanned (1024 … 100000000).

--- What a language server reports about the MCP server it runs (shared_schema/endpoint.schema.json).
---@class cenotaph.Endpoint
---@field url string Streamable HTTP endpoint on 127.0.0.1.
---@field token string Send as `Authorization: Bearer <token>`.
---@field project string

---@class cenotaph.Options
---@field cmd? string[] The server command (default `{ 'cenotaph', 'serve' }`); the CLI is run as the same program.
---@field enable? boolean Call `vim.lsp.enable('cenotaph')` (default true).
---@field ask_reason? boolean Ask for a reason with `vim.ui.input` before a command that needs one (default true); false lets the server ask.
---@field settings? cenotaph.Settings Sent as initializationOptions and in workspace/didChangeConfiguration.
---@field on_endpoint? fun(report: cenotaph.Endpoint, client: vim.lsp.Client) Called when a server reports its MCP endpoint.

---@type cenotaph.Options
M.defaults = {
  cmd = { 'cenotaph', 'serve' },
  enable = true,
  ask_reason = true,
  settings = {},
  on_endpoint = nil,
}

M.SEVERITIES = { 'error', 'warning', 'information', 'hint', 'off' }
M.SEVERITY_KEYS = { 'project', 'global', 'otherProject', 'mention', 'instruction' }
M.FILE_KINDS = {
  'python', 'javascript', 'go', 'rust', 'requirements', 'pyproject', 'package_json',
  'cargo_toml', 'go_mod', 'setup_py', 'setup_cfg', 'dockerfile', 'markdown', 'instructions',
}

--- The options in effect (after setup(), or the defaults).
---@type cenotaph.Options
M.options = vim.deepcopy(M.defaults)

---@param path string
---@param message string
local function fail(path, message)
  error(('cenotaph.setup: %s %s'):format(path, message), 0)
end

---@param list string[]
local function quoted(list)
  return table.concat(vim.tbl_map(function(v) return ('"%s"'):format(v) end, list), ', ')
end

---@param path string
---@param value any
---@param expected string
local function expect(path, value, expected)
  if type(value) ~= expected then
    fail(path, ('must be a %s (got %s %s)'):format(expected, type(value), vim.inspect(value)))
  end
end

---@param path string
---@param tbl table
---@param allowed string[]
local function known_keys(path, tbl, allowed)
  for key in pairs(tbl) do
    if not vim.tbl_contains(allowed, key) then
      fail(path, ('has no option %s (known: %s)'):format(vim.inspect(key), table.concat(allowed, ', ')))
    end
  end
end

---@param settings any
local function validate_settings(settings)
  expect('opts.settings', settings, 'table')
  known_keys('opts.settings', settings, { 'severity', 'otherProjects', 'fileKinds', 'maxFileSize' })
  if settings.severity ~= nil then
    expect('opts.settings.severity', settings.severity, 'table')
    known_keys('opts.settings.severity', settings.severity, M.SEVERITY_KEYS)
    for key, level in pairs(settings.severity) do
      if not vim.tbl_contains(M.SEVERITIES, level) then
        fail('opts.settings.severity.' .. key, ('must be one of %s (got %s)'):format(quoted(M.SEVERITIES), vim.inspect(level)))
      end
    end
  end
  if settings.otherProjects ~= nil then
    expect('opts.settings.otherProjects', settings.otherProjects, 'boolean')
  end
  if settings.fileKinds ~= nil then
    expect('opts.settings.fileKinds', settings.fileKinds, 'table')
    if not vim.islist(settings.fileKinds) then
      fail('opts.settings.fileKinds', 'must be a list')
    end
    local seen = {}
    for i, kind in ipairs(settings.fileKinds) do
      if not vim.tbl_contains(M.FILE_KINDS, kind) then
        fail(('opts.settings.fileKinds[%d]'):format(i), ('must be one of %s (got %s)'):format(quoted(M.FILE_KINDS), vim.inspect(kind)))
      end
      if seen[kind] then
        fail('opts.settings.fileKinds', ('lists %q twice'):format(kind))
      end
      seen[kind] = true
    end
  end
  local size = settings.maxFileSize
  if size ~= nil then
    expect('opts.settings.maxFileSize', size, 'number')
    if size % 1 ~= 0 or size < 1024 or size > 100000000 then
      fail('opts.settings.maxFileSize', ('must be a whole number from 1024 to 100000000 (got %s)'):format(size))
    end
  end
end

--- Validate `opts` and merge them over the defaults; raises an error naming the bad option.
---@param opts? cenotaph.Options
---@return cenotaph.Options
function M.resolve(opts)
  if opts == nil then
    opts = {}
  end
  expect('opts', opts, 'table')
  known_keys('opts', opts, { 'cmd', 'enable', 'ask_reason', 'settings', 'on_endpoint' })
  if opts.cmd ~= nil then
    expect('opts.cmd', opts.cmd, 'table')
    if #opts.cmd == 0 or not vim.islist(opts.cmd) then
      fail('opts.cmd', 'must be a non-empty list of strings, e.g. { "cenotaph", "serve" }')
    end
    for i, part in ipairs(opts.cmd) do
      expect(('opts.cmd[%d]'):format(i), part, 'string')
    end
  end
  if opts.enable ~= nil then
    expect('opts.enable', opts.enable, 'boolean')
  end
  if opts.ask_reason ~= nil then
    expect('opts.ask_reason', opts.ask_reason, 'boolean')
  end
  if opts.settings ~= nil then
    validate_settings(opts.settings)
  end
  if opts.on_endpoint ~= nil then
    expect('opts.on_endpoint', opts.on_endpoint, 'function')
  end
  local resolved = vim.tbl_extend('force', vim.deepcopy(M.defaults), opts)
  resolved.settings = vim.deepcopy(opts.settings or {})
  return resolved
end

return M
