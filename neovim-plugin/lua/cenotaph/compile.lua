--- From memory to policy: a `cenotaph/compile` proposal (shared_schema/compile.schema.json) opens
--- in a new tab as `:diffsplit` of the file on disk against a scratch buffer holding the draft;
--- `:Cenotaph accept` / `:Cenotaph reject` (or `a` / `r` in the draft) decide it. Accept is the
--- server's `cenotaph.acceptProposal`: it writes only if the file is still as it was diffed.
local client_mod = require('cenotaph.client')
local ui = require('cenotaph.ui')

local M = {}

M.REQUEST = 'cenotaph/compile'
M.TARGETS = { 'skill', 'agents-md', 'claude-md', 'copilot', 'ruff', 'eslint', 'biome' }

---@class cenotaph.ProposedFile
---@field path string relative to the repository root
---@field uri string the file on disk (it may not exist yet)
---@field baseSha256 string
---@field draft string|vim.NIL vim.NIL: accepting deletes the file
---@field diff string

---@class cenotaph.CompileResult
---@field target string
---@field proposalId? integer
---@field lessons integer
---@field files cenotaph.ProposedFile[]

--- Split text into lines as a buffer holds them (the final newline is the buffer's 'eol').
---@param text string
---@return string[]
local function lines_of(text)
  local lines = vim.split(text, '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  return lines
end

--- The proposal of the current buffer (a draft, or the file beside one in its tab).
---@return integer?
function M.current()
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local id = vim.b[vim.api.nvim_win_get_buf(win)].cenotaph_proposal
    if id then
      return id
    end
  end
end

--- Open one file of a proposal: a tab with the file on disk and the draft, diffed.
---@param proposal_id integer
---@param file cenotaph.ProposedFile
---@return integer bufnr of the draft
function M.show(proposal_id, file)
  local path = vim.uri_to_fname(file.uri)
  vim.cmd.tabnew()
  if vim.uv.fs_stat(path) then
    vim.cmd.edit(vim.fn.fnameescape(path))
  else
    vim.bo.buftype = 'nofile'
    vim.bo.bufhidden = 'wipe'
    vim.api.nvim_buf_set_name(0, ('cenotaph://proposal/%d/absent/%s'):format(proposal_id, file.path))
  end
  vim.b.cenotaph_proposal = proposal_id
  vim.cmd.diffthis()
  vim.cmd('rightbelow vnew')
  local draft = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_name(draft, ('cenotaph://proposal/%d/%s'):format(proposal_id, file.path))
  vim.api.nvim_buf_set_lines(draft, 0, -1, false, type(file.draft) == 'string' and lines_of(file.draft) or {})
  local bo = vim.bo[draft]
  bo.buftype, bo.bufhidden, bo.swapfile, bo.modifiable, bo.modified = 'nofile', 'wipe', false, false, false
  bo.filetype = vim.filetype.match({ filename = path }) or ''
  vim.b[draft].cenotaph_proposal = proposal_id
  vim.keymap.set('n', 'a', function() M.decide(true) end, { buffer = draft, desc = 'Cenotaph: accept the proposal' })
  vim.keymap.set('n', 'r', function() M.decide(false) end, { buffer = draft, desc = 'Cenotaph: reject the proposal' })
  vim.cmd.diffthis()
  return draft
end

--- Close every tab that shows `proposal_id`.
---@param proposal_id integer
local function close(proposal_id)
  for _, tab in ipairs(vim.api.nvim_list_tabpages()) do
    for _, win in ipairs(vim.api.nvim_tabpage_list_wins(tab)) do
      if vim.b[vim.api.nvim_win_get_buf(win)].cenotaph_proposal == proposal_id and #vim.api.nvim_list_tabpages() > 1 then
        vim.api.nvim_set_current_tabpage(tab)
        vim.cmd('diffoff! | tabclose')
        break
      end
    end
  end
end

--- Accept or reject the proposal of the current tab (or `proposal_id`).
---@param accept boolean
---@param proposal_id? integer
function M.decide(accept, proposal_id)
  proposal_id = proposal_id or M.current()
  if not proposal_id then
    ui.warn('Cenotaph: no proposal here: open one with :Cenotaph compile {target}')
    return
  end
  local bufnr = vim.api.nvim_get_current_buf()
  client_mod.with_client(bufnr, function(client)
    require('cenotaph.commands').invoke(client, accept and 'cenotaph.acceptProposal' or 'cenotaph.rejectProposal',
      { proposalId = proposal_id }, {
        bufnr = bufnr,
        on_done = function(result)
          if result and result.done then
            close(proposal_id)
            vim.cmd.checktime()
          end
        end,
      })
  end)
end

--- Ask the server for a proposal of `target` and open its diff.
---@param target string
---@param opts? { bufnr?: integer, uri?: string, on_shown?: fun(result: cenotaph.CompileResult) }
function M.propose(target, opts)
  opts = opts or {}
  local bufnr = ui.buffer(opts.bufnr)
  client_mod.with_client(bufnr, function(client)
    local params = { target = target }
    if opts.uri then
      params.uri = opts.uri
    elseif vim.api.nvim_buf_get_name(bufnr) ~= '' and vim.bo[bufnr].buftype == '' then
      params.uri = vim.uri_from_bufnr(bufnr)
    else
      params.uri = vim.uri_from_fname(client_mod.root_for(bufnr) .. '/.cenotaph.toml')
    end
    client:request(M.REQUEST, params, function(err, result) ---@param result cenotaph.CompileResult?
      if err or not result then
        ui.error(('compile %s: %s'):format(target, err and err.message or 'no result'))
        return
      end
      if result.proposalId == nil or result.proposalId == vim.NIL then
        ui.notify(('Cenotaph: %s is up to date (%d lessons)'):format(target, result.lessons))
      else
        for _, file in ipairs(result.files) do
          M.show(result.proposalId, file)
        end
        ui.notify(('Cenotaph proposal #%d: %d file(s) from %d lessons; :Cenotaph accept or :Cenotaph reject')
          :format(result.proposalId, #result.files, result.lessons))
      end
      if opts.on_shown then
        opts.on_shown(result)
      end
    end, bufnr)
  end)
end

--- The client-side handler of `cenotaph.proposeUpdate`, the "Propose an update" code action.
---@param command lsp.Command
---@param ctx { client_id: integer, bufnr: integer }
function M.on_command(command, ctx)
  local argument = command.arguments and command.arguments[1] or {}
  M.propose(argument.target, { bufnr = ctx.bufnr, uri = argument.uri })
end

return M
