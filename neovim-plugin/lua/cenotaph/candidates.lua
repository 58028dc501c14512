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

--- The filters `:Cenotaph reject|accept` takes besides ids (shared_schema: cenotaph.decideCandidates).
M.FILTERS = { 'class=', 'path=', 'commit=', 'below=' }

--- `{ '13', '19', 'class=dev', 'below=0.5' }` as the command's selection; nil and why when a word is
--- neither an id nor a filter (nothing is sent: no word is silently ignored).
---@param words string[]
---@return table?, string?
function M.selection(words)
  local sel = { proposalIds = {}, classes = {} }
  for _, word in ipairs(words) do
    local key, value = word:match('^(%a+)=(.+)$')
    if word:match('^%d+$') then
      table.insert(sel.proposalIds, tonumber(word))
    elseif key == 'class' then
      table.insert(sel.classes, value)
    elseif key == 'path' or key == 'commit' then
      sel[key] = value
    elseif key == 'below' and tonumber(value) then
      sel.below = tonumber(value)
    else
      return nil, ('%s is neither an id nor class=, path=, commit= or below='):format(vim.inspect(word))
    end
  end
  if #sel.proposalIds == 0 then sel.proposalIds = nil end
  if #sel.classes == 0 then sel.classes = nil end
  return sel
end

--- `:Cenotaph reject|accept ID… [class=C] [path=GLOB] [commit=SHA] [below=N]`: the server lists
--- what the decision would touch; the person sees the list and confirms; then exactly those ids are
--- decided (a reason is asked for a rejection), as one batch `:Cenotaph reopen batch=N` undoes.
---@param accept boolean
---@param words string[]
---@param opts? { bufnr?: integer, on_done?: fun(result: cenotaph.CommandResult?) }
function M.decide(accept, words, opts)
  opts = opts or {}
  local sel, err = M.selection(words)
  if not sel then
    ui.warn(err)
    return
  end
  local bufnr = ui.buffer(opts.bufnr)
  local decision = accept and 'accept' or 'reject'
  client_mod.with_client(bufnr, function(client)
    local commands = require('cenotaph.commands')
    local preview = vim.tbl_extend('force', client_mod.scope(client, bufnr), sel, { decision = decision, preview = true })
    commands.execute(client, 'cenotaph.decideCandidates', preview, bufnr, function(result)
      if not (result and result.ids) or #result.ids == 0 then
        ui.warn(('no pending candidates match (%s)'):format(table.concat(words, ' ')))
        if opts.on_done then opts.on_done(result) end
        return
      end
      local yes = ('%s %d'):format(accept and 'Accept' or 'Reject', #result.ids)
      vim.ui.select({ yes, 'Cancel' }, { prompt = result.message, kind = 'cenotaph.confirm' }, function(choice)
        if choice ~= yes then
          ui.notify('Cenotaph: cancelled, nothing decided', vim.log.levels.WARN)
          if opts.on_done then opts.on_done({ done = false, message = 'cancelled' }) end
          return
        end
        commands.invoke(client, 'cenotaph.decideCandidates', { decision = decision, proposalIds = result.ids },
          { bufnr = bufnr, on_done = opts.on_done })
      end)
    end)
  end)
end

--- `:Cenotaph reopen batch=N` or `:Cenotaph reopen ID…`: undo a rejection.
---@param words string[]
---@param opts? { bufnr?: integer }
function M.reopen(words, opts)
  opts = opts or {}
  local argument = { proposalIds = {} }
  for _, word in ipairs(words) do
    local batch = word:match('^batch=(%d+)$')
    if batch then
      argument.batch = tonumber(batch)
    elseif word:match('^%d+$') then
      table.insert(argument.proposalIds, tonumber(word))
    else
      ui.warn(('%s is neither an id nor batch=N'):format(vim.inspect(word)))
      return
    end
  end
  if #argument.proposalIds == 0 then argument.proposalIds = nil end
  local bufnr = ui.buffer(opts.bufnr)
  client_mod.with_client(bufnr, function(client)
    require('cenotaph.commands').invoke(client, 'cenotaph.reopenCandidates', argument, { bufnr = bufnr })
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
