--- From memory to policy: a `cenotaph/compile` proposal (shared_schema/compile.schema.json) opens
--- in a new tab as a diff of a scratch copy of the file on disk against one holding the draft;
--- `:Cenotaph accept` / `:Cenotaph reject` (or `a` / `r` in the draft) decide it. Accept is the
--- server's `cenotaph.acceptProposal`: it writes only if the file is still as it was diffed.
local client_mod = require('cenotaph.client')
local ui = require('cenotaph.ui')

local M = {}

--- The tab each proposal was opened from: deciding it goes back there, not to whichever tab
--- `:tabclose` lands on.
---@type table<integer, integer> tabpage by proposal id
local origin = {}

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

--- A read-only scratch buffer of the proposal: never the person's own buffer of the file, so
--- deciding the proposal leaves their buffers, windows and tabs as they were.
---@param proposal_id integer
---@param name string
---@param lines string[]
---@param filetype string
---@param client_id integer the server that made the proposal: it decides it, and sees the person's buffers
---@return integer bufnr
local function scratch(proposal_id, name, lines, filetype, client_id)
  local bufnr = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_name(bufnr, ('cenotaph://proposal/%d/%s'):format(proposal_id, name))
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  local bo = vim.bo[bufnr]
  bo.buftype, bo.bufhidden, bo.swapfile, bo.modifiable, bo.modified = 'nofile', 'wipe', false, false, false
  bo.filetype = filetype
  vim.b[bufnr].cenotaph_proposal = proposal_id
  vim.b[bufnr].cenotaph_client = client_id
  vim.keymap.set('n', 'a', function() M.decide(true) end, { buffer = bufnr, desc = 'Cenotaph: accept the proposal' })
  vim.keymap.set('n', 'r', function() M.decide(false) end, { buffer = bufnr, desc = 'Cenotaph: reject the proposal' })
  vim.cmd.diffthis()
  return bufnr
end

--- Open one file of a proposal: a tab with a copy of the file on disk and the draft, diffed.
---@param proposal_id integer
---@param file cenotaph.ProposedFile
---@param client_id integer the server that made the proposal
---@return integer bufnr of the draft
function M.show(proposal_id, file, client_id)
  local path = vim.uri_to_fname(file.uri)
  local filetype = vim.filetype.match({ filename = path }) or ''
  local on_disk = vim.uv.fs_stat(path) and vim.fn.readfile(path) or nil
  origin[proposal_id] = origin[proposal_id] or vim.api.nvim_get_current_tabpage()
  vim.cmd.tabnew()
  scratch(proposal_id, (on_disk and 'disk/' or 'absent/') .. file.path, on_disk or {}, filetype, client_id)
  vim.cmd('rightbelow vnew')
  return scratch(proposal_id, file.path, type(file.draft) == 'string' and lines_of(file.draft) or {}, filetype,
    client_id)
end

--- Close the tabs of `proposal_id` (only its scratch buffers carry the mark) and go back to the
--- tab it was opened from.
---@param proposal_id integer
local function close(proposal_id)
  for _, tab in ipairs(vim.api.nvim_list_tabpages()) do
    local ours = vim.tbl_filter(function(win)
      return vim.b[vim.api.nvim_win_get_buf(win)].cenotaph_proposal == proposal_id
    end, vim.api.nvim_tabpage_list_wins(tab))
    if #ours > 0 then
      vim.api.nvim_set_current_tabpage(tab)
      if #vim.api.nvim_list_tabpages() > 1 then
        vim.cmd('diffoff! | tabclose')
      else -- the last tab: leave an empty window rather than the proposal
        vim.cmd('diffoff! | enew | only')
      end
    end
  end
  local from = origin[proposal_id]
  origin[proposal_id] = nil
  if from and vim.api.nvim_tabpage_is_valid(from) then
    vim.api.nvim_set_current_tabpage(from)
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
      -- From the ledger or a scratch buffer: the client's workspace folder, not the cwd.
      params.uri = vim.uri_from_fname((client.root_dir or client_mod.root_for(bufnr)) .. '/.cenotaph.toml')
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
          M.show(result.proposalId, file, client.id)
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
