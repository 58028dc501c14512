-- From memory to policy in Neovim: an out-of-date managed block in AGENTS.md is flagged, its code
-- action opens the proposal as a diff of the file against a scratch buffer, and :Cenotaph accept
-- writes it. Run by tests/run.sh against the real `cenotaph serve` on a private store.
package.path = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/?.lua;' .. package.path
local H = require('helpers')
local check, wait, step = H.check, H.wait, H.step

assert(vim.env.CENOTAPH_HOME and vim.env.XDG_STATE_HOME, 'run me through tests/run.sh (private store)')
H.load_plugin()

local offered ---@type string[]
vim.ui.select = function(items, opts, on_choice)
  offered = vim.tbl_map(function(item)
    return opts.format_item and opts.format_item(item) or (type(item) == 'table' and item.title) or tostring(item)
  end, items)
  for i, title in ipairs(offered) do
    if title:find('Propose an update', 1, true) then
      return on_choice(items[i], i)
    end
  end
  on_choice(nil, nil)
end
local messages = {}
vim.notify = function(msg, level)
  table.insert(messages, { msg = msg, level = level })
end

local root = vim.fn.tempname()
local proj = root .. '/app'
vim.fn.mkdir(proj, 'p')
vim.fn.writefile({ 'project = "acme/compile"' }, proj .. '/.cenotaph.toml')
-- A block written before any lesson was reinforced (as `cenotaph compile` writes it then).
vim.fn.writefile({ '# Agents', '', 'Run `make test`.', '', '<!-- cenotaph:begin -->', '<!-- cenotaph:lessons -->',
  'No reinforced lessons yet.', '<!-- cenotaph:end -->' }, proj .. '/AGENTS.md')

step('a lesson the block does not have yet', function()
  local out = H.cli({ 'abandon', 'lxml', '--reason', 'wheels missing on the build image', '--effort', '5' }, proj)
  check(out.code == 0, 'abandon lxml (effort 5: reinforced)', out.stderr)
end)

require('cenotaph').setup()

local agents_buf
local function note()
  for _, d in ipairs(H.diagnostics(agents_buf)) do
    if d.code == 'lessons-changed' then
      return d
    end
  end
end

step('the out-of-date block gets an Information diagnostic', function()
  vim.cmd.edit(proj .. '/AGENTS.md')
  agents_buf = vim.api.nvim_get_current_buf()
  check(wait(90000, note), 'lessons-changed is published', H.diagnostics(agents_buf))
  local d = note() or {}
  check(d.severity == vim.diagnostic.severity.INFO and d.message == '1 lesson changed since this block was written',
    'Information: 1 lesson changed', d)
  check(d.lnum == 4, 'on the begin marker', d)
end)

local draft_buf, person_tab, other_tab
step('"Propose an update" opens the proposal as a diff against a scratch buffer', function()
  -- The person has another tab after this one: `:tabclose` alone would land there.
  person_tab = vim.api.nvim_get_current_tabpage()
  vim.cmd.tabnew(proj .. '/.cenotaph.toml')
  other_tab = vim.api.nvim_get_current_tabpage()
  vim.api.nvim_set_current_tabpage(person_tab)
  vim.api.nvim_win_set_cursor(0, { 5, 0 })
  vim.lsp.buf.code_action()
  check(wait(30000, function() return vim.b.cenotaph_proposal ~= nil and vim.bo.buftype == 'nofile' end),
    'a draft buffer opens', { offered = offered, messages = messages })
  draft_buf = vim.api.nvim_get_current_buf()
  local wins = vim.api.nvim_tabpage_list_wins(0)
  check(#wins == 2 and vim.wo[wins[1]].diff and vim.wo[wins[2]].diff, 'two windows in diff mode')
  local disk = vim.api.nvim_win_get_buf(wins[1])
  check(vim.api.nvim_buf_get_name(disk):match('^cenotaph://proposal/%d+/disk/AGENTS%.md$') and disk ~= agents_buf,
    'a scratch copy of the file on disk on the left, not the person\'s buffer', vim.api.nvim_buf_get_name(disk))
  check(H.text(disk) == table.concat(vim.fn.readfile(proj .. '/AGENTS.md'), '\n') and not vim.bo[disk].modifiable,
    'the copy holds the file as it is on disk, read-only', H.text(disk))
  check(vim.b[agents_buf].cenotaph_proposal == nil, 'the person\'s buffer is not taken into the proposal')
  check(H.text(draft_buf):find("- Don't: lxml — wheels missing on the build image", 1, true), 'the draft has the new lesson',
    H.text(draft_buf))
  check(not vim.bo[draft_buf].modifiable, 'the draft is read-only')
end)

step('with unsaved edits in AGENTS.md, :Cenotaph accept says so and writes nothing under the buffer', function()
  local on_disk = vim.fn.readfile(proj .. '/AGENTS.md')
  vim.api.nvim_buf_set_lines(agents_buf, -1, -1, false, { 'An unsaved note.' })
  vim.wait(300) -- the server has the buffer's text (didChange is debounced)
  messages = {}
  vim.cmd('Cenotaph accept')
  check(wait(15000, function()
    return vim.iter(messages):any(function(m) return m.msg:find('AGENTS.md has unsaved changes', 1, true) ~= nil end)
  end), 'it says the file has unsaved changes', messages)
  check(vim.deep_equal(vim.fn.readfile(proj .. '/AGENTS.md'), on_disk), 'the file on disk is as it was')
  check(vim.b.cenotaph_proposal ~= nil and vim.bo[agents_buf].modified, 'the proposal stays open, the edit in the buffer')
  vim.api.nvim_buf_set_lines(agents_buf, -2, -1, false, {})
  vim.bo[agents_buf].modified = false
  vim.wait(300)
end)

step(':Cenotaph accept writes the draft, closes only the proposal\'s tab and returns to the person\'s', function()
  local draft = H.text(draft_buf)
  vim.cmd('Cenotaph accept')
  check(wait(15000, function() return #vim.api.nvim_list_tabpages() == 2 end), 'the diff tab closes', messages)
  local tab = vim.api.nvim_get_current_tabpage()
  check(tab == person_tab and vim.api.nvim_tabpage_is_valid(other_tab), 'back on the tab it was opened from, the other kept',
    { current = tab, person = person_tab, other = other_tab })
  local shown = vim.tbl_map(vim.api.nvim_win_get_buf, vim.api.nvim_tabpage_list_wins(tab))
  check(vim.deep_equal(shown, { agents_buf }) and not vim.wo.diff, 'the person\'s tab stays, showing AGENTS.md, not in diff mode',
    vim.tbl_map(vim.api.nvim_buf_get_name, shown))
  check(#vim.tbl_filter(function(b) return vim.api.nvim_buf_get_name(b):find('^cenotaph://proposal/') ~= nil end,
    vim.api.nvim_list_bufs()) == 0, 'no proposal buffer is left behind')
  check(vim.iter(messages):any(function(m) return m.msg:find('accepted: AGENTS.md written', 1, true) ~= nil end),
    'the message says which file was written', messages)
  check(wait(5000, function() return H.text(agents_buf) == draft end), 'the person\'s buffer shows what was written',
    H.text(agents_buf))
  local written = table.concat(vim.fn.readfile(proj .. '/AGENTS.md'), '\n')
  check(written == draft, 'AGENTS.md is the draft', written)
  check(written:find('^# Agents\n\nRun `make test`%.\n\n<!%-%- cenotaph:begin %-%->\n'), 'the rest of the file is as it was',
    written)
  check(not written:find('No reinforced lessons yet', 1, true), 'the old block is gone', written)
end)

vim.lsp.stop_client(vim.lsp.get_clients({ name = 'cenotaph' }), true)
H.finish()
