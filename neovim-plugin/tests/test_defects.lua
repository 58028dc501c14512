-- Issue 41's editor defects, each in the real Neovim against the real server: documents open
-- beside the person's file and `q` closes them; the recall picker is one short line a memory, with
-- plain vim.ui.select; the README's code-action mapping works on a Visual selection; "Show why"
-- opens its float without a hit-enter prompt (a Neovim with its terminal UI, in a pty); no
-- "another process is writing" when none is. Run by tests/run.sh.
package.path = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/?.lua;' .. package.path
local H = require('helpers')
local check, wait, step = H.check, H.wait, H.step

assert(vim.env.CENOTAPH_HOME and vim.env.XDG_STATE_HOME, 'run me through tests/run.sh (private store)')
H.load_plugin()
local seen = H.capture()

local root = vim.fn.tempname()
local proj = root .. '/app'
vim.fn.mkdir(proj, 'p')
vim.fn.writefile({ 'project = "acme/defects"' }, proj .. '/.cenotaph.toml')
vim.fn.writefile({ 'lxml==5.2.1', 'click' }, proj .. '/requirements.txt')
-- Something to mine: a repository, and transcript folders that are empty (never the real ones).
vim.env.CLAUDE_CONFIG_DIR, vim.env.CODEX_HOME = root .. '/claude', root .. '/codex'
vim.fn.mkdir(root .. '/claude', 'p')
vim.fn.mkdir(root .. '/codex', 'p')
for _, args in ipairs({ { 'init', '-q' }, { 'add', '.' }, { '-c', 'user.name=T', '-c', 'user.email=t@example.invalid',
  'commit', '-qm', 'Start' } }) do
  assert(vim.system(vim.list_extend({ 'git' }, args), { cwd = proj }):wait().code == 0)
end
-- A memory as long as a document's chunk: many lines, the first one long.
local first_line = 'Deploys go through the staging cluster first, then a canary at five percent of traffic '
  .. 'for an hour, then everywhere; a failed canary rolls back on its own.'
local memory = { first_line }
for i = 1, 40 do
  table.insert(memory, ('Step %d of the deploy runbook: check the dashboards and the error budget.'):format(i))
end

step('the store: an abandoned approach and a long memory, with the CLI', function()
  local out = H.cli({ 'abandon', 'lxml', '--reason', 'wheels missing on the build image', '--effort', '3' }, proj)
  check(out.code == 0, 'abandon lxml', out.stderr)
  out = H.cli({ 'remember', '--kind', 'fact', table.concat(memory, '\n') }, proj)
  check(out.code == 0, 'remember the runbook', out.stderr)
end)

require('cenotaph').setup()
vim.cmd.edit(proj .. '/requirements.txt')
local person_buf = vim.api.nvim_get_current_buf()
local person_win = vim.api.nvim_get_current_win()

step('the flag arrives', function()
  check(wait(90000, function() return H.flag(person_buf, 'lxml') end), 'lxml is flagged', H.diagnostics(person_buf))
end)

step('the first write, while the server loads its model: no "another process is writing" when none is', function()
  local progress = {}
  vim.api.nvim_create_autocmd('LspProgress', {
    callback = function(ev)
      table.insert(progress, vim.deepcopy(ev.data.params.value))
    end,
  })
  seen.done, seen.messages = {}, {}
  require('cenotaph').remember('The nightly build runs at 02:00.')
  check(wait(90000, function() return #seen.done > 0 end), 'remembered', seen.messages)
  local claimed = vim.tbl_filter(function(v)
    return (v.title or ''):find('waiting for the store', 1, true) or (v.message or ''):find('another process', 1, true)
  end, progress)
  check(#claimed == 0, 'no progress says another process is writing', progress)
end)

--- After `open()`, the document `pattern` names is in a window of its own and the person's file
--- still in theirs; `q` closes the document's window.
---@param what string
---@param pattern string
---@param open fun()
local function beside(what, pattern, open)
  vim.api.nvim_set_current_win(person_win)
  open()
  check(wait(30000, function() return vim.api.nvim_buf_get_name(0):match(pattern) end), what .. ' opens',
    { name = vim.api.nvim_buf_get_name(0), messages = seen.messages })
  check(vim.api.nvim_win_is_valid(person_win) and vim.api.nvim_win_get_buf(person_win) == person_buf
    and vim.api.nvim_get_current_win() ~= person_win, what .. ": the person's file stays in its window")
  vim.api.nvim_feedkeys('q', 'x', false)
  check(vim.deep_equal(vim.api.nvim_tabpage_list_wins(0), { person_win }), what .. ': `q` closes it',
    vim.tbl_map(function(w) return vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)) end, vim.api.nvim_tabpage_list_wins(0)))
end

step('the ledger, the endpoint and a memory open beside the file, and `q` closes them', function()
  beside(':Cenotaph ledger', '^cenotaph://ledger/', function() vim.cmd('Cenotaph ledger') end)
  local client = vim.lsp.get_clients({ name = 'cenotaph' })[1]
  check(wait(15000, function() return require('cenotaph.endpoint').reports[client.id] end), 'the endpoint is reported')
  beside(':Cenotaph endpoint', '^cenotaph://endpoint/', function() vim.cmd('Cenotaph endpoint') end)
  local select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    for i, item in ipairs(items) do
      if opts.format_item(item):find('staging cluster', 1, true) then
        return on_choice(item, i)
      end
    end
    on_choice(nil, nil)
  end
  beside(':Cenotaph recall', '^cenotaph://memory/%d+$', function() vim.cmd('Cenotaph recall how do deploys work') end)
  vim.ui.select = select
end)

step('the recall picker, plain vim.ui.select: one short line a memory, the chosen one in full', function()
  vim.api.nvim_set_current_win(person_win)
  local listed ---@type string[]?
  local inputlist = vim.fn.inputlist
  vim.fn.inputlist = function(lines) -- what the built-in vim.ui.select puts on the screen
    listed = lines
    for i, line in ipairs(lines) do
      if line:find('staging cluster', 1, true) then
        return i - 1 -- the first line is the prompt
      end
    end
    return 0
  end
  vim.cmd('Cenotaph recall how do deploys work')
  check(wait(30000, function() return listed end), 'the picker is shown')
  vim.fn.inputlist = inputlist
  local long = vim.tbl_filter(function(line) return vim.fn.strchars(line) > 160 or line:find('\n') end, listed or {})
  check(#(listed or {}) > 1 and #long == 0, 'every line is short', long)
  local line = vim.iter(listed or {}):find(function(l) return l:find('staging cluster', 1, true) end) or ''
  check(line:find('Deploys go through the staging cluster first', 1, true) and not line:find('Step 1', 1, true)
    and line:find('…', 1, true), 'the memory is its first line, cut', line)
  check(wait(30000, function() return vim.api.nvim_buf_get_name(0):match('^cenotaph://memory/%d+$') end), 'chosen, it opens')
  check(H.text(0):find(table.concat(memory, '\n'), 1, true), 'in full', H.text(0))
  vim.api.nvim_feedkeys('q', 'x', false)
end)

step("the README's code-action mapping on a Visual selection offers the actions, and edits nothing", function()
  local readme = table.concat(vim.fn.readfile(H.plugin_root .. '/README.md'), '\n')
  local mapping = readme:match("\n(vim%.keymap%.set%([^\n]*'<leader>ca'[^\n]*)")
  check(mapping, 'the README maps <leader>ca', readme)
  assert(loadstring(mapping or ''))()
  vim.api.nvim_set_current_win(person_win)
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  local before = H.text(person_buf)
  local offered
  local select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    offered = vim.tbl_map(opts.format_item, items)
    on_choice(nil, nil)
  end
  vim.api.nvim_feedkeys(vim.keycode('V<leader>ca'), 'x', false)
  check(wait(15000, function() return offered end), 'the code actions are offered')
  vim.ui.select = select
  vim.api.nvim_feedkeys(vim.keycode('<Esc>'), 'x', false)
  check(vim.iter(offered or {}):any(function(t) return t:find("Show why 'lxml'", 1, true) ~= nil end),
    'for the selected line', offered)
  check(H.text(person_buf) == before and not vim.bo[person_buf].modified, 'the line is still there', H.text(person_buf))
end)

step('"Show why" opens its float with no hit-enter prompt (a Neovim with its UI)', function()
  local tui = H.tui({ proj .. '/requirements.txt' })
  local function lua(code, ...)
    local result = vim.rpcrequest(tui.chan, 'nvim_exec_lua', code, { ... })
    -- A nil comes back over RPC as vim.NIL, which is truthy: no float yet must read as none.
    if result == vim.NIL then
      return nil
    end
    return result
  end
  check(wait(90000, function()
    return lua([[return #vim.diagnostic.get(0, { severity = vim.diagnostic.severity.WARN }) > 0]])
  end), 'lxml is flagged there too')
  vim.rpcnotify(tui.chan, 'nvim_exec_lua', [[
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    vim.lsp.buf.code_action({ apply = true, filter = function(a) return a.title:find('^Show why') ~= nil end })
  ]], {})
  -- nvim_get_mode is answered at a prompt too; nvim_exec_lua would wait for it to end.
  local function blocked()
    return vim.rpcrequest(tui.chan, 'nvim_get_mode').blocking
  end
  local float_text = [[
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(win).relative ~= '' then
        return table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false), '\n')
      end
    end
  ]]
  wait(30000, function() return blocked() or lua(float_text) end)
  vim.wait(500) -- a message echoed with the float would stop Neovim by now
  local mode = vim.rpcrequest(tui.chan, 'nvim_get_mode')
  local text = not mode.blocking and lua(float_text) or nil
  check(text and not mode.blocking, 'the float is open and Neovim waits for nothing', mode)
  check(text and text:find('wheels missing on the build image', 1, true), 'with the story', text)
  tui.stop()
end)

vim.lsp.stop_client(vim.lsp.get_clients({ name = 'cenotaph' }), true)
H.finish()
