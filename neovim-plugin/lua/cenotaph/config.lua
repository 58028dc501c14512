--- Options of `require('cenotaph').setup()`: defaults and validation.
local M = {}

---@alias cenotaph.Severity 'error'|'warning'|'information'|'hint'|'off'

--- The server's settings (shared_schema/settings.schema.json, checked by setup() against
--- lua/cenotaph/settings_schema.lua, generated from it): `:help cenotaph-settings`.
---@class cenotaph.Settings
---@field severity? table<string, cenotaph.Severity>
---@field otherProjects? boolean
---@field fileKinds? string[]
---@field maxFileSize? integer
---@field documents? { include?: string[] }
---@field feeds? { interval?: number }
---@field mine? { onOpen?: boolean }

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

-- The server's settings, generated from shared_schema/settings.schema.json.
M.SETTINGS = require('cenotaph.settings_schema')

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

--- Check `value` against a node of the generated schema (lua/cenotaph/settings_schema.lua).
---@param path string
---@param value any
---@param node table
local function validate_node(path, value, node)
  if node.type == 'object' then
    expect(path, value, 'table')
    known_keys(path, value, node.keys)
    for _, key in ipairs(node.keys) do
      if value[key] ~= nil then
        validate_node(path .. '.' .. key, value[key], node.properties[key])
      end
    end
  elseif node.type == 'array' then
    expect(path, value, 'table')
    if not vim.islist(value) then
      fail(path, 'must be a list')
    end
    local seen = {}
    for i, item in ipairs(value) do
      validate_node(('%s[%d]'):format(path, i), item, node.items)
      if node.uniqueItems and seen[item] then
        fail(path, ('lists %q twice'):format(item))
      end
      seen[item] = true
    end
  elseif node.enum then
    if not vim.tbl_contains(node.enum, value) then
      fail(path, ('must be one of %s (got %s)'):format(quoted(node.enum), vim.inspect(value)))
    end
  elseif node.type == 'integer' or node.type == 'number' then
    expect(path, value, 'number')
    local whole = node.type == 'integer'
    if (whole and value % 1 ~= 0) or (node.minimum and value < node.minimum) or (node.maximum and value > node.maximum) then
      fail(path, ('must be a %s from %s to %s (got %s)'):format(whole and 'whole number' or 'number',
        node.minimum or '-inf', node.maximum or 'inf', value))
    end
  else
    expect(path, value, node.type)
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
    validate_node('opts.settings', opts.settings, M.SETTINGS)
  end
  if opts.on_endpoint ~= nil then
    expect('opts.on_endpoint', opts.on_endpoint, 'function')
  end
  local resolved = vim.tbl_extend('force', vim.deepcopy(M.defaults), opts)
  resolved.settings = vim.deepcopy(opts.settings or {})
  return resolved
end

return M
