--- Cenotaph for Neovim: dead ends stay dead, visibly.
---
--- The language server (`cenotaph serve`) does the work through Neovim's built-in client
--- (lsp/cenotaph.lua); this module is the Lua API behind `:Cenotaph` and the `<Plug>` mappings.
local M = {}

---@param bufnr? integer
---@param on_ready fun(client: vim.lsp.Client, bufnr: integer)
local function with_client(bufnr, on_ready)
  local resolved = require('cenotaph.ui').buffer(bufnr)
  require('cenotaph.client').with_client(resolved, function(client)
    on_ready(client, resolved)
  end)
end

---@param client vim.lsp.Client
---@param bufnr integer
---@param everywhere boolean?
---@return table
local function where(client, bufnr, everywhere)
  if everywhere then
    return { scope = 'everywhere' }
  end
  return vim.tbl_extend('force', { scope = 'project' }, require('cenotaph.client').scope(client, bufnr))
end

--- Configure the plugin and the `cenotaph` LSP config, then enable it. Safe to call again: each
--- call starts from the defaults. Raises an error naming the first invalid option.
---@param opts? cenotaph.Options
function M.setup(opts)
  local config = require('cenotaph.config')
  local resolved = config.resolve(opts)
  config.options = resolved
  ---@type vim.lsp.Config
  local lsp = { cmd = resolved.cmd }
  if next(resolved.settings) ~= nil then
    lsp.init_options = resolved.settings
    lsp.settings = { cenotaph = resolved.settings }
  else
    -- An empty Lua table would be sent as a JSON array.
    lsp.init_options = vim.empty_dict()
    lsp.settings = vim.empty_dict()
  end
  vim.lsp.config('cenotaph', lsp)
  for _, client in ipairs(vim.lsp.get_clients({ name = 'cenotaph' })) do
    client.settings = lsp.settings
    client:notify('workspace/didChangeConfiguration', { settings = lsp.settings })
  end
  if resolved.enable then
    vim.lsp.enable('cenotaph')
  end
end

--- The kinds of memory (`cenotaph.remember`'s `kind` in shared_schema/commands.schema.json;
--- tests/test_plugin.lua checks they agree).
M.KINDS = { 'note', 'experience', 'decision', 'preference', 'fact' }

---@class cenotaph.RememberOpts
---@field kind? 'note'|'experience'|'decision'|'preference'|'fact'
---@field lines? { start: integer, ['end']: integer } The selection's lines (1-based): the memory keeps its file and lines.
---@field bufnr? integer

--- Remember `text` verbatim in the project of the buffer.
---@param text string
---@param opts? cenotaph.RememberOpts
function M.remember(text, opts)
  opts = opts or {}
  if type(text) ~= 'string' or vim.trim(text) == '' then
    require('cenotaph.ui').warn('nothing to remember')
    return
  end
  with_client(opts.bufnr, function(client, bufnr)
    local scope = require('cenotaph.client').scope(client, bufnr)
    local argument = vim.tbl_extend('force', { text = text, kind = opts.kind }, scope)
    -- Lines locate something only in the buffer's own file (a buffer outside the root is scoped by the root).
    if opts.lines and scope.uri and scope.uri == vim.uri_from_bufnr(bufnr) then
      argument.lines = { start = opts.lines.start, ['end'] = opts.lines['end'] }
    end
    require('cenotaph.commands').invoke(client, 'cenotaph.remember', argument, { bufnr = bufnr })
  end)
end

---@class cenotaph.BlessOpts
---@field reason? string Kept in the audit log; not asked (it is optional).
---@field bufnr? integer

--- Vouch for memory `memory_id`: its lessons compile without waiting to recur.
---@param memory_id integer
---@param opts? cenotaph.BlessOpts
function M.bless(memory_id, opts)
  opts = opts or {}
  with_client(opts.bufnr, function(client, bufnr)
    require('cenotaph.commands').invoke(client, 'cenotaph.bless', { memoryId = memory_id, reason = opts.reason },
      { bufnr = bufnr })
  end)
end

---@class cenotaph.AbandonOpts
---@field everywhere? boolean Abandon it in every project (the global graveyard).
---@field reason? string Asked with vim.ui.input when absent.
---@field effort? integer 1–5: what it cost before it was abandoned.
---@field ecosystem? 'pypi'|'npm'|'cargo'|'go'|'container'|'apt'|'apk'|'conda'|'tool'|'other'
---@field bufnr? integer

--- Record `name` as an abandoned approach.
---@param name string
---@param opts? cenotaph.AbandonOpts
function M.abandon(name, opts)
  opts = opts or {}
  with_client(opts.bufnr, function(client, bufnr)
    local argument = vim.tbl_extend('force', where(client, bufnr, opts.everywhere),
      { name = name, reason = opts.reason, effort = opts.effort, ecosystem = opts.ecosystem })
    require('cenotaph.commands').invoke(client, 'cenotaph.abandon', argument, { bufnr = bufnr })
  end)
end

---@class cenotaph.SuppressOpts
---@field everywhere? boolean Stop flagging it in every project.
---@field reason? string Asked with vim.ui.input when absent.
---@field bufnr? integer

--- Stop flagging `name` in editors (a `diagnostic` suppression).
---@param name string
---@param opts? cenotaph.SuppressOpts
function M.suppress(name, opts)
  opts = opts or {}
  with_client(opts.bufnr, function(client, bufnr)
    local argument = vim.tbl_extend('force', where(client, bufnr, opts.everywhere), { name = name, reason = opts.reason })
    require('cenotaph.commands').invoke(client, 'cenotaph.silence', argument, { bufnr = bufnr })
  end)
end

--- `run` in the graveyard project of `name`: `project` when given, else the one its diagnostics
--- on open buffers name, else the buffer's own project.
---@param client vim.lsp.Client
---@param bufnr integer
---@param name string
---@param project? string
---@param run fun(project: string)
local function in_its_project(client, bufnr, name, project, run)
  for _, item in ipairs(project == nil and require('cenotaph.names').flagged() or {}) do
    if item.name == name or item.displayName == name then
      project = item.project
      break
    end
  end
  if project then
    run(project)
  else
    require('cenotaph.client').project(client, bufnr, run)
  end
end

---@class cenotaph.ReinstateOpts
---@field project? string The graveyard it is in ("" is the global one); found from diagnostics or the buffer's project.
---@field reason? string Asked with vim.ui.input when absent.
---@field bufnr? integer

--- Take `name` out of the graveyard: it works now.
---@param name string
---@param opts? cenotaph.ReinstateOpts
function M.reinstate(name, opts)
  opts = opts or {}
  with_client(opts.bufnr, function(client, bufnr)
    local commands = require('cenotaph.commands')
    local function run(project)
      commands.invoke(client, 'cenotaph.reinstate', { name = name, project = project, reason = opts.reason }, {
        bufnr = bufnr,
        -- Not in the project's graveyard: perhaps in the global one.
        on_error = (project ~= '' and opts.project == nil) and function(err, argument)
          if type(err.data) == 'table' and err.data.error == 'NotFound' then
            commands.execute(client, 'cenotaph.reinstate', vim.tbl_extend('force', argument, { project = '' }), bufnr)
            return true
          end
          return false
        end or nil,
      })
    end
    in_its_project(client, bufnr, name, opts.project, run)
  end)
end

---@class cenotaph.EffortOpts
---@field effort? integer 1–5; picked with vim.ui.select when absent.
---@field project? string The graveyard it is in ("" is the global one); found from diagnostics or the buffer's project.
---@field reason? string Kept in the audit log; not asked.
---@field bufnr? integer

--- Give the abandoned approach `name` the effort it cost (1–5); at 4 or more the memories naming
--- it leave recall, as abandoning at that effort does.
---@param name string
---@param opts? cenotaph.EffortOpts
function M.effort(name, opts)
  opts = opts or {}
  with_client(opts.bufnr, function(client, bufnr)
    local function run(project)
      require('cenotaph.commands').invoke(client, 'cenotaph.setEffort',
        { name = name, project = project, effort = opts.effort, reason = opts.reason }, { bufnr = bufnr })
    end
    in_its_project(client, bufnr, name, opts.project, run)
  end)
end

--- Recall memories about `query`; pick one to read it in a scratch buffer.
---@param query string
---@param opts? { bufnr?: integer, k?: integer }
function M.recall(query, opts)
  require('cenotaph.recall').recall(query, opts)
end

--- Open the ledger of the buffer's project (or of `opts.project`).
---@param opts? cenotaph.LedgerOpenOpts
function M.ledger(opts)
  require('cenotaph.ledger').open(opts)
end

--- Mine the buffer's workspace folder (git history, agent transcripts) for candidates from
--- history, then open the ledger at them.
---@param opts? { bufnr?: integer, on_done?: fun(result: cenotaph.CommandResult?) }
function M.mine(opts)
  require('cenotaph.candidates').mine(opts)
end

--- Open the ledger at the candidates from history, in a tab of its own.
---@param opts? { bufnr?: integer, project?: string }
function M.candidates(opts)
  require('cenotaph.candidates').review(opts)
end

--- Pick a pending proposal (an agent's destructive or epistemic verb) to accept or reject.
---@param opts? { bufnr?: integer }
function M.proposals(opts)
  require('cenotaph.ledger').proposals(opts)
end

--- Show the MCP endpoint of the buffer's server (URL copied to registers).
---@param opts? { bufnr?: integer }
function M.endpoint(opts)
  require('cenotaph.endpoint').show((opts or {}).bufnr)
end

return M
