--- Candidates from history: `:Cenotaph mine` (the server's `cenotaph.mine`: git history and agent
--- transcripts) and the start-up notice that candidates wait. Both end in the ledger, at the
--- candidates, in a tab of its own so the person's windows stay as they were.
local client_mod = require('cenotaph.client')
local ui = require('cenotaph.ui')

local M = {}

--- The ledger's section (shared_schema/ledger.schema.json) the review starts at.
M.SECTION = 'Candidates from history'

--- The action of the server's notice that candidates wait (shared_schema/README.md: "Review",
--- "Mine now", "Later"); the only showMessageRequest that offers it.
M.REVIEW = 'Review'

--- Whether this session has shown the notice (the server tells once per workspace folder; with
--- several folders the person still hears it once).
M.noticed = false

--- Open the ledger of the buffer's project (or `opts.project`) at the candidates.
---@param opts? { bufnr?: integer, project?: string }
function M.review(opts)
  opts = opts or {}
  require('cenotaph.ledger').open({ bufnr = opts.bufnr, project = opts.project, section = M.SECTION, tab = true })
end

--- While `client` mines, show its `$/progress` reports (the server sends them when the store keeps
--- it waiting); returns the function that stops showing them.
---@param client vim.lsp.Client
---@return fun()
local function show_progress(client)
  local id = vim.api.nvim_create_autocmd('LspProgress', {
    desc = 'Cenotaph: progress of :Cenotaph mine',
    callback = function(ev)
      local value = ev.data and ev.data.params and ev.data.params.value
      if ev.data.client_id == client.id and type(value) == 'table' and value.kind ~= 'end' then
        ui.notify(('%s%s'):format(value.title or 'Cenotaph', value.message and (': ' .. value.message) or ''))
      end
    end,
  })
  return function()
    pcall(vim.api.nvim_del_autocmd, id)
  end
end

--- `:Cenotaph mine`: mine the buffer's workspace folder now, then review the candidates.
---@param opts? { bufnr?: integer, on_done?: fun(result: cenotaph.CommandResult?) }
function M.mine(opts)
  opts = opts or {}
  local bufnr = ui.buffer(opts.bufnr)
  client_mod.with_client(bufnr, function(client)
    ui.notify('Cenotaph: mining git history and agent transcripts…')
    local stop = show_progress(client)
    require('cenotaph.commands').execute(client, 'cenotaph.mine', client_mod.scope(client, bufnr), bufnr, function(result)
      stop()
      if result and result.done then
        M.review({ bufnr = bufnr })
      end
      if opts.on_done then
        opts.on_done(result)
      end
    end)
  end)
end

--- window/showMessageRequest from a Cenotaph server. The candidates notice is answered at once
--- (start-up never waits on a menu) and becomes a notice shown once per session; any other
--- request (a reason the server asks for) goes to Neovim's own handler.
---@param err lsp.ResponseError?
---@param params lsp.ShowMessageRequestParams
---@param ctx lsp.HandlerContext
function M.on_message_request(err, params, ctx)
  local review = vim.iter(params.actions or {}):any(function(action) return action.title == M.REVIEW end)
  if not review then
    return vim.lsp.handlers['window/showMessageRequest'](err, params, ctx)
  end
  if not M.noticed then
    M.noticed = true
    vim.schedule(function()
      ui.notify(params.message .. ' Review them with :Cenotaph candidates (or <Plug>(cenotaph-candidates)).')
      vim.api.nvim_exec_autocmds('User', { pattern = 'CenotaphCandidatesWaiting', modeline = false,
        data = { client_id = ctx.client_id, message = params.message } })
    end)
  end
  return vim.NIL
end

return M
