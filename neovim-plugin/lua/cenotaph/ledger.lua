--- The ledger: a read-only Markdown buffer per project, filled by the `cenotaph/ledger` request
--- (shared_schema/ledger.schema.json) and attached to the client, so that the server's
--- diagnostics and code actions work on it.
---
--- The server names a ledger `cenotaph:ledger/<project>.md`; Neovim keeps a buffer name as a URI
--- only when it reads `scheme://…` (anything else becomes a path under the cwd). The buffer is
--- therefore `cenotaph://ledger/<project>.md`, and `bind()` translates the URIs of the messages
--- the client sends; lsp/cenotaph.lua translates those it receives.
local client_mod = require('cenotaph.client')
local ui = require('cenotaph.ui')

local M = {}

M.SERVER_PREFIX = 'cenotaph:ledger/'
M.BUFFER_PREFIX = 'cenotaph://ledger/'

---@param uri string
---@return string
function M.to_buffer(uri)
  if vim.startswith(uri, M.SERVER_PREFIX) then
    return M.BUFFER_PREFIX .. uri:sub(#M.SERVER_PREFIX + 1)
  end
  return uri
end

---@param uri any
---@return any
function M.to_server(uri)
  if type(uri) == 'string' and vim.startswith(uri, M.BUFFER_PREFIX) then
    return M.SERVER_PREFIX .. uri:sub(#M.BUFFER_PREFIX + 1)
  end
  return uri
end

--- Params with a ledger buffer's URI rewritten to the server's (copies, never mutates).
---@param params any
---@return any
local function outgoing(params)
  if type(params) ~= 'table' then
    return params
  end
  local document = params.textDocument
  if type(document) == 'table' and M.to_server(document.uri) ~= document.uri then
    params = vim.deepcopy(params)
    params.textDocument.uri = M.to_server(document.uri)
  elseif M.to_server(params.uri) ~= params.uri then
    params = vim.tbl_extend('force', {}, params, { uri = M.to_server(params.uri) })
  end
  return params
end

local bound = setmetatable({}, { __mode = 'k' }) ---@type table<table, true>

--- Translate the ledger URIs of everything the client sends (idempotent).
---@param client vim.lsp.Client
function M.bind(client)
  local rpc = client.rpc
  if not rpc or bound[rpc] then
    return
  end
  bound[rpc] = true
  local request, notify = rpc.request, rpc.notify
  rpc.request = function(method, params, ...)
    return request(method, outgoing(params), ...)
  end
  rpc.notify = function(method, params)
    return notify(method, outgoing(params))
  end
end

---@class cenotaph.LedgerResult
---@field uri string
---@field project string
---@field text string
---@field seq integer
---@field counts { graveyard: integer, contradictions: integer, deprioritised: integer, proposals: integer, candidates: integer }

--- Put a ledger's text into its buffer and attach the client to it.
---@param bufnr integer
---@param client vim.lsp.Client
---@param ledger cenotaph.LedgerResult
function M.fill(bufnr, client, ledger)
  local lines = ui.lines(ledger.text)
  if lines[#lines] == '' then
    table.remove(lines) -- the final newline is the buffer's end of line
  end
  local views = {}
  for _, win in ipairs(vim.fn.win_findbuf(bufnr)) do
    views[win] = vim.api.nvim_win_get_cursor(win)
  end
  vim.bo[bufnr].buftype = 'nofile'
  vim.bo[bufnr].bufhidden = 'hide'
  vim.bo[bufnr].swapfile = false
  vim.bo[bufnr].readonly = false
  vim.bo[bufnr].modifiable = true
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].modifiable = false
  vim.bo[bufnr].readonly = true
  vim.bo[bufnr].modified = false
  vim.b[bufnr].cenotaph_client = client.id
  vim.b[bufnr].cenotaph_project = ledger.project
  vim.b[bufnr].cenotaph_seq = ledger.seq
  vim.b[bufnr].cenotaph_counts = ledger.counts
  ui.closable(bufnr)
  for win, cursor in pairs(views) do
    local row = math.min(cursor[1], vim.api.nvim_buf_line_count(bufnr))
    pcall(vim.api.nvim_win_set_cursor, win, { row, cursor[2] })
  end
  if vim.bo[bufnr].filetype ~= 'markdown' then
    vim.bo[bufnr].filetype = 'markdown'
  end
  M.bind(client)
  if not vim.lsp.buf_is_attached(bufnr, client.id) then
    vim.lsp.buf_attach_client(bufnr, client.id)
  end
  vim.api.nvim_exec_autocmds('User', { pattern = 'CenotaphLedger', modeline = false, data = { buf = bufnr, ledger = ledger } })
end

local pending = {} ---@type table<string, true> ledger buffers whose text is already at hand

--- Ask `client` for a ledger and show it in `bufnr`.
---@param client vim.lsp.Client
---@param params { project?: string, uri?: string }
---@param bufnr integer?
local function load(client, params, bufnr)
  client_mod.request(client, 'cenotaph/ledger', params, nil, function(ledger)
    local name = M.to_buffer(ledger.uri)
    local target = bufnr or ui.find_buffer(name) or vim.fn.bufadd(name)
    if not vim.api.nvim_buf_is_valid(target) then
      return
    end
    if not vim.api.nvim_buf_is_loaded(target) then
      pending[name] = true -- its BufReadCmd is a no-op: the text is here
      vim.fn.bufload(target)
      pending[name] = nil
    end
    M.fill(target, client, ledger)
  end)
end

--- Put the cursor of the current window on the first entry of `section` (a `## ` heading), or on
--- the heading when the section has no entries.
---@param section string
local function go_to(section)
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  for i, line in ipairs(lines) do
    if vim.startswith(line, '## ' .. section) then
      local row = i
      for j = i + 1, #lines do
        if vim.startswith(lines[j], '## ') then
          break
        elseif vim.startswith(lines[j], '- ') then
          row = j
          break
        end
      end
      vim.api.nvim_win_set_cursor(0, { row, 0 })
      return
    end
  end
end

---@class cenotaph.LedgerOpenOpts
---@field project? string
---@field bufnr? integer
---@field section? string Put the cursor on this section's first entry (e.g. "Candidates from history").
---@field tab? boolean Show it in a tab of its own (or the window already showing it), not the current window.

--- Open the ledger of the current buffer's project (or of `opts.project`).
---@param opts? cenotaph.LedgerOpenOpts
function M.open(opts)
  opts = opts or {}
  local bufnr = ui.buffer(opts.bufnr)
  client_mod.with_client(bufnr, function(client)
    local params = opts.project and { project = opts.project } or client_mod.scope(client, bufnr)
    client_mod.request(client, 'cenotaph/ledger', params, nil, function(ledger)
      local name = M.to_buffer(ledger.uri)
      local existing = ui.find_buffer(name)
      local win = existing and vim.fn.win_findbuf(existing)[1]
      pending[name] = true
      local ok, err = pcall(function()
        if win and opts.tab then
          vim.api.nvim_set_current_win(win)
        elseif opts.tab then
          vim.cmd.tabedit(vim.fn.fnameescape(name))
        else
          ui.window_for(name)
          vim.cmd.edit(vim.fn.fnameescape(name))
        end
      end)
      pending[name] = nil
      if not ok then
        ui.error(tostring(err))
        return
      end
      M.fill(vim.api.nvim_get_current_buf(), client, ledger)
      if opts.section then
        go_to(opts.section)
      end
    end)
  end)
end

---@class cenotaph.PendingProposal An entry of the ledger's "Pending proposals" section.
---@field id integer
---@field text string `mcp:agent proposes to refute memory:4 · 2026-03-01 — why`

--- The pending proposals a ledger's text lists (`- proposal #N · …`).
---@param text string
---@return cenotaph.PendingProposal[]
function M.pending_proposals(text)
  local found = {}
  for _, line in ipairs(ui.lines(text)) do
    local id, rest = line:match('^%- proposal #(%d+) · (.*)$')
    if id then
      table.insert(found, { id = tonumber(id), text = rest })
    end
  end
  return found
end

--- The buffer's project's pending proposals, from the server's ledger (`cenotaph/ledger`); pick
--- one to accept or reject.
---@param opts? { bufnr?: integer }
function M.proposals(opts)
  opts = opts or {}
  local bufnr = ui.buffer(opts.bufnr)
  client_mod.with_client(bufnr, function(client)
    client_mod.request(client, 'cenotaph/ledger', client_mod.scope(client, bufnr), bufnr, function(ledger)
      local proposals = M.pending_proposals(ledger.text)
      if #proposals == 0 then
        -- Candidates from history are not an agent's proposals: say so, with their count.
        local waiting = ledger.counts and ledger.counts.candidates or 0
        ui.notify(('Cenotaph: no pending proposals from agents%s'):format(waiting > 0
          and ('; %d candidate%s from history wait (:Cenotaph candidates)'):format(waiting, waiting == 1 and '' or 's')
          or ''))
        return
      end
      vim.ui.select(proposals, {
        prompt = 'Cenotaph proposals from agents',
        kind = 'cenotaph.proposal',
        format_item = function(p) ---@param p cenotaph.PendingProposal
          return ('#%d %s'):format(p.id, p.text)
        end,
      }, function(proposal) ---@param proposal cenotaph.PendingProposal?
        if not proposal then
          return
        end
        vim.ui.select({ 'Accept', 'Reject' }, { prompt = ('Proposal #%d'):format(proposal.id) }, function(verdict)
          if verdict then
            require('cenotaph.commands').invoke(client, verdict == 'Accept' and 'cenotaph.acceptProposal' or 'cenotaph.rejectProposal',
              { proposalId = proposal.id }, { bufnr = bufnr })
          end
        end)
      end)
    end)
  end)
end

--- BufReadCmd for `cenotaph://ledger/*`: `:edit` of a ledger URI, `:e!`, or a session restore.
---@param bufnr integer
---@param name string
function M.read(bufnr, name)
  if pending[name] then
    return -- open() fills it with the result it already has
  end
  vim.bo[bufnr].buftype = 'nofile'
  vim.bo[bufnr].swapfile = false
  client_mod.with_client(bufnr, function(client)
    load(client, { uri = M.to_server(name) }, bufnr)
  end)
end

--- `cenotaph/ledgerDidChange`: fetch the ledger again into its buffer, if it is still open.
---@param params { uri: string, project: string, seq: integer }
---@param ctx { client_id: integer }
function M.on_did_change(params, ctx)
  local bufnr = params and ui.find_buffer(M.to_buffer(params.uri))
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not (bufnr and client and vim.api.nvim_buf_is_loaded(bufnr)) then
    return
  end
  load(client, { project = params.project }, bufnr)
end

return M
