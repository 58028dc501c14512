-- A reviewer's afternoon in Neovim, no shell: mine the repository's history, review the candidate
-- (accept it with a reason and an effort), silence the flag, lift the silence from the ledger,
-- compile AGENTS.md and accept it; the person's own tab (two windows, an unsaved edit) stays as
-- it was. Then the start-up notice of candidates waiting: answered at once, shown once a session,
-- and opening the ledger at the candidates when asked. Run by tests/run.sh.
package.path = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/?.lua;' .. package.path
local H = require('helpers')
local check, wait, step = H.check, H.wait, H.step

assert(vim.env.CENOTAPH_HOME and vim.env.XDG_STATE_HOME, 'run me through tests/run.sh (private store)')
H.load_plugin()

local root = vim.fn.tempname()
-- The server mines these transcript folders too: empty, never the real ones under $HOME.
vim.env.CLAUDE_CONFIG_DIR, vim.env.CODEX_HOME = root .. '/claude', root .. '/codex'
vim.fn.mkdir(root .. '/claude', 'p')
vim.fn.mkdir(root .. '/codex', 'p')

-- What the person answers.
local answers, picks, offered = {}, {}, {}
vim.ui.input = function(opts, on_confirm)
  on_confirm(table.remove(answers, 1) or opts.default)
end
vim.ui.select = function(items, opts, on_choice)
  local titles = vim.tbl_map(function(item)
    return opts.format_item and opts.format_item(item) or (type(item) == 'table' and item.title) or tostring(item)
  end, items)
  table.insert(offered, titles)
  local pattern = table.remove(picks, 1)
  for i, title in ipairs(titles) do
    if pattern and title:find(pattern) then
      return on_choice(items[i], i)
    end
  end
  on_choice(nil, nil)
end
local inputlists = 0
vim.fn.inputlist = function()
  inputlists = inputlists + 1
  return 0
end
local messages = {}
vim.notify = function(msg, level)
  table.insert(messages, { msg = msg, level = level })
end
local done = {}
vim.api.nvim_create_autocmd('User', {
  pattern = 'CenotaphCommandDone',
  callback = function(ev)
    table.insert(done, ev.data)
  end,
})
---@param command string
local function finished(command)
  return vim.iter(done):find(function(d) return d.command == command end)
end
---@param pattern string
local function said(pattern)
  return vim.iter(messages):any(function(m) return m.msg:find(pattern) ~= nil end)
end

--- A git repository whose history replaced requests with httpx (what mining finds).
---@param dir string
---@param project string
local function repository(dir, project)
  vim.fn.mkdir(dir, 'p')
  vim.fn.writefile({ ('project = "%s"'):format(project) }, dir .. '/.cenotaph.toml')
  local env = { GIT_AUTHOR_NAME = 'T', GIT_AUTHOR_EMAIL = 't@example.invalid', GIT_COMMITTER_NAME = 'T',
    GIT_COMMITTER_EMAIL = 't@example.invalid', GIT_CONFIG_GLOBAL = '/dev/null', GIT_CONFIG_NOSYSTEM = '1' }
  local function git(args, date)
    local out = vim.system(vim.list_extend({ 'git' }, args), { cwd = dir, text = true,
      env = vim.tbl_extend('force', env, { GIT_AUTHOR_DATE = date, GIT_COMMITTER_DATE = date }) }):wait()
    assert(out.code == 0, out.stderr)
  end
  git({ 'init', '-q', '-b', 'main' })
  vim.fn.writefile({ 'requests', 'click' }, dir .. '/requirements.txt')
  git({ 'add', '.' })
  git({ 'commit', '-q', '-m', 'Start' }, '2024-01-01T10:00:00+00:00')
  vim.fn.writefile({ 'httpx', 'click' }, dir .. '/requirements.txt')
  git({ 'commit', '-q', '-am', 'Replace requests with httpx' }, '2024-02-01T10:00:00+00:00')
end

local proj = root .. '/app'
repository(proj, 'acme/afternoon')
vim.fn.writefile({ '# Agents', '', '<!-- cenotaph:begin -->', '<!-- cenotaph:lessons -->', 'No reinforced lessons yet.',
  '<!-- cenotaph:end -->' }, proj .. '/AGENTS.md')
vim.fn.writefile({ 'import click', 'import requests', '' }, proj .. '/client.py')

require('cenotaph').setup()

-- The person's tab: client.py with an unsaved edit, and requirements.txt in a split.
vim.cmd.edit(proj .. '/client.py')
local client_buf = vim.api.nvim_get_current_buf()
vim.api.nvim_buf_set_lines(client_buf, -1, -1, false, { 'print("work in progress")' })
vim.cmd('split ' .. vim.fn.fnameescape(proj .. '/requirements.txt'))
local person_tab = vim.api.nvim_get_current_tabpage()
local function layout()
  return vim.tbl_map(function(win)
    return { win = win, buf = vim.api.nvim_win_get_buf(win), cursor = vim.api.nvim_win_get_cursor(win) }
  end, vim.api.nvim_tabpage_list_wins(person_tab))
end
local before = layout()
local unsaved = H.text(client_buf)
local client ---@type vim.lsp.Client

step('the server starts on the repository; no candidates yet, so no notice', function()
  check(wait(60000, function() return vim.lsp.get_clients({ name = 'cenotaph', bufnr = client_buf })[1] end), 'attached')
  client = vim.lsp.get_clients({ name = 'cenotaph' })[1]
  vim.wait(1500)
  check(not said('wait for your review'), 'no notice', messages)
end)

local ledger_buf
step('<Plug>(cenotaph-mine): git history mined, then the ledger at the candidate, in a tab of its own', function()
  vim.api.nvim_feedkeys(vim.keycode('<Plug>(cenotaph-mine)'), 'x', false)
  check(said('^Cenotaph: mining git history and agent transcripts'), 'says it is mining', messages)
  check(wait(60000, function() return finished('cenotaph.mine') end), 'mine ran')
  local ran = finished('cenotaph.mine') or {}
  check(ran.result and ran.result.done and ran.result.message:find('1 new candidate from history', 1, true),
    'one candidate from the git history', ran)
  check(wait(10000, function() return vim.b.cenotaph_project == 'acme/afternoon' end), 'the ledger opens')
  ledger_buf = vim.api.nvim_get_current_buf()
  check(vim.api.nvim_get_current_tabpage() ~= person_tab, 'in another tab')
  check(vim.api.nvim_get_current_line():find('^%- candidate #%d+ · %*%*requests%*%*'), 'the cursor is on the candidate',
    vim.api.nvim_get_current_line())
end)

--- Run the ledger's code action titled `title` on the cursor's line.
---@param title string
local function act(title)
  table.insert(picks, vim.pesc(title))
  vim.lsp.buf.code_action()
end

step('review: the candidate accepted with an edited reason and its effort', function()
  answers = { 'httpx has HTTP/2 and async; requests was replaced' }
  picks = {}
  act("Edit the reason, then accept 'requests'")
  table.insert(picks, '^5 ')
  check(wait(15000, function() return finished('cenotaph.acceptCandidate') end), 'accepted', offered)
  local ran = finished('cenotaph.acceptCandidate') or { argument = {} }
  check(ran.result and ran.result.done and ran.argument.effort == 5 and ran.argument.reason:find('^httpx has'),
    'with the reason and effort 5', ran)
  check(wait(5000, function() return H.text(ledger_buf):find('## Candidates from history (0)', 1, true) end),
    'the candidate leaves the ledger', H.text(ledger_buf))
  check(H.text(ledger_buf):find('**requests** (pypi)', 1, true), 'into the graveyard', H.text(ledger_buf))
  check(wait(10000, function() return H.flag(client_buf, 'requests') end), "the person's client.py flags requests")
end)

step('silence the flag in client.py', function()
  vim.api.nvim_set_current_tabpage(person_tab)
  vim.api.nvim_set_current_win(before[2].win)
  vim.api.nvim_win_set_cursor(0, { 2, 7 })
  answers = { 'we still call it in one legacy script' }
  act("Silence 'requests' in this project")
  check(wait(15000, function() return finished('cenotaph.silence') end), 'silenced', offered)
  check(wait(10000, function() return not H.flag(client_buf, 'requests') end), 'the flag goes')
end)

step('lift the silence from the ledger', function()
  vim.api.nvim_win_set_cursor(before[2].win, before[2].cursor)
  vim.cmd.tabnext()
  check(vim.api.nvim_get_current_buf() == ledger_buf, 'the ledger tab')
  local row
  check(wait(5000, function()
    for i, line in ipairs(vim.api.nvim_buf_get_lines(ledger_buf, 0, -1, false)) do
      if line:find('^%- silence #%d+ · %*%*requests%*%* · not flagged in editors') then
        row = i
        return true
      end
    end
  end), 'the ledger lists the silence', H.text(ledger_buf))
  vim.api.nvim_win_set_cursor(0, { row or 1, 2 })
  answers = { 'the legacy script is gone' }
  act("Lift the silence of 'requests' (here)")
  check(wait(15000, function() return finished('cenotaph.liftSilence') end), 'lifted', offered)
  local ran = finished('cenotaph.liftSilence') or { argument = {} }
  check(ran.result and ran.result.done and ran.argument.reason == 'the legacy script is gone', 'with the reason asked by the plugin', ran)
  check(wait(10000, function() return H.flag(client_buf, 'requests') end), 'client.py flags requests again')
end)

step('compile AGENTS.md from the ledger and accept the proposal with `a`', function()
  vim.cmd('Cenotaph compile agents-md')
  check(wait(30000, function() return vim.b.cenotaph_proposal ~= nil end), 'the proposal opens', messages)
  check(H.text(0):find("Don't: requests", 1, true), 'the draft has the lesson', H.text(0))
  vim.api.nvim_feedkeys('a', 'x', false)
  check(wait(15000, function() return finished('cenotaph.acceptProposal') end), 'accepted')
  check(table.concat(vim.fn.readfile(proj .. '/AGENTS.md'), '\n'):find("Don't: requests", 1, true), 'AGENTS.md is written')
  check(#vim.tbl_filter(function(b) return vim.api.nvim_buf_get_name(b):find('^cenotaph://proposal/') ~= nil end,
    vim.api.nvim_list_bufs()) == 0, 'no proposal buffer is left')
end)

step("the person's tab, windows, cursors and unsaved edit are as they were", function()
  check(vim.api.nvim_tabpage_is_valid(person_tab) and vim.deep_equal(layout(), before), 'same windows, buffers, cursors',
    { layout(), before })
  check(H.text(client_buf) == unsaved and vim.bo[client_buf].modified, 'the unsaved edit is still there')
  check(inputlists == 0, 'no blocking menu was shown')
end)

step('the start-up notice: answered at once, shown once, opens the ledger at the candidates when asked', function()
  -- Two more repositories mined before any server opens them: each server tells of its candidate.
  local second, third = root .. '/second', root .. '/third'
  repository(second, 'acme/second')
  repository(third, 'acme/third')
  for _, dir in ipairs({ second, third }) do
    local out = H.cli({ 'mine', 'git', '.' }, dir)
    check(out.code == 0 and out.stdout:find('requests', 1, true), 'mined ' .. dir, out)
  end
  local waiting, asked = 0, 0
  local candidates = require('cenotaph.candidates')
  local handler = candidates.on_message_request
  candidates.on_message_request = function(...)
    asked = asked + 1
    return handler(...)
  end
  vim.api.nvim_create_autocmd('User', { pattern = 'CenotaphCandidatesWaiting', callback = function() waiting = waiting + 1 end })
  messages = {}
  vim.cmd.tabnew(second .. '/requirements.txt')
  check(wait(60000, function() return said('1 candidate from history') end), 'the notice is shown', messages)
  check(said(':Cenotaph candidates'), 'it says how to review them', messages)
  check(inputlists == 0 and #vim.tbl_filter(function(o) return vim.tbl_contains(o, 'Review') end, offered) == 0,
    'as a notification, not a menu', offered)
  vim.cmd.edit(third .. '/requirements.txt')
  check(wait(60000, function() return #vim.lsp.get_clients({ name = 'cenotaph', bufnr = 0 }) > 0 end), 'a server for the third')
  check(wait(30000, function() return asked == 2 end), 'the third server tells of its candidate too', asked)
  vim.wait(500)
  check(waiting == 1, 'but the session shows one notice', messages)
  vim.cmd.edit(second .. '/requirements.txt')
  local tabs = #vim.api.nvim_list_tabpages()
  vim.api.nvim_feedkeys(vim.keycode('<Plug>(cenotaph-candidates)'), 'x', false)
  check(wait(10000, function() return vim.b.cenotaph_project == 'acme/second' end), "the second project's ledger opens")
  check(#vim.api.nvim_list_tabpages() == tabs + 1, 'in a tab of its own')
  check(vim.api.nvim_get_current_line():find('^%- candidate #%d+ · %*%*requests%*%*'), 'at the candidate',
    vim.api.nvim_get_current_line())
end)

vim.lsp.stop_client(vim.lsp.get_clients({ name = 'cenotaph' }), true)
H.finish()
