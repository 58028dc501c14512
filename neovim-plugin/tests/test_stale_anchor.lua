-- A memory anchored to code, in the real editor (issue 41): its lines follow an edit above them,
-- the changed code turns it stale (a Hint on its lines), and the Hint's code actions show what
-- changed and re-confirm it. Run by tests/run.sh against the real `cenotaph serve` on a private store.
package.path = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/?.lua;' .. package.path
local H = require('helpers')
local check, wait, step = H.check, H.wait, H.step

assert(vim.env.CENOTAPH_HOME and vim.env.XDG_STATE_HOME, 'run me through tests/run.sh (private store)')
H.load_plugin()

local offered ---@type string[]?
vim.ui.select = function(items, opts, on_choice)
  offered = vim.tbl_map(function(item)
    return opts.format_item and opts.format_item(item) or (type(item) == 'table' and item.title) or tostring(item)
  end, items)
  on_choice(nil, nil)
end
local seen = H.capture()

local root = vim.fn.tempname()
local proj = root .. '/app'
vim.fn.mkdir(proj .. '/src', 'p')
vim.fn.writefile({ 'project = "acme/anchors"' }, proj .. '/.cenotaph.toml')
vim.fn.writefile({ 'import os', '# retries: three, then give up', 'RETRIES = 3', 'TIMEOUT = 30', '' }, proj .. '/src/jobs.py')

---@param bufnr integer
---@return vim.Diagnostic[]
local function stale(bufnr)
  return vim.tbl_filter(function(d)
    return d.code == 'anchor-stale'
  end, H.diagnostics(bufnr))
end

---@param memory_id integer
---@return table? the anchor as `cenotaph anchors list` checks it now
local function listed(memory_id)
  local _, out = H.cli({ 'anchors', 'list', '--json' }, proj)
  for _, item in ipairs(out or {}) do
    if item.memory_id == memory_id then
      return item.anchor
    end
  end
end

local id ---@type integer?
step('a memory anchored with the CLI', function()
  local out, result = H.cli({ 'remember', '--json', '--kind', 'decision', '--at', 'src/jobs.py:2-3',
    'The queue retries a job three times, then gives up' }, proj)
  check(out.code == 0 and result and result.stored, 'remember --at src/jobs.py:2-3', out.stderr)
  id = result and result.id
  local anchor = id and listed(id)
  check(anchor and anchor.start_line == 2 and anchor.end_line == 3 and anchor.state == 'current',
    'anchored to lines 2-3, current', anchor)
end)

require('cenotaph').setup()

local buf ---@type integer
step('opened and edited above it: the anchor follows, still current', function()
  vim.cmd.edit(proj .. '/src/jobs.py')
  buf = vim.api.nvim_get_current_buf()
  check(wait(60000, function() return #vim.lsp.get_clients({ bufnr = buf, name = 'cenotaph' }) > 0 end),
    'the cenotaph client is attached')
  -- Two lines inserted above, saved: the anchor moves to 4-5 and its code has not changed.
  vim.api.nvim_buf_set_lines(buf, 1, 1, false, { 'import sys', 'import time' })
  vim.cmd.write()
  check(wait(20000, function()
    local anchor = id and listed(id)
    return anchor and anchor.start_line == 4 and anchor.end_line == 5
  end), 'the store has it at lines 4-5', id and listed(id))
  check(#stale(buf) == 0, 'no stale hint on code that did not change', H.diagnostics(buf))
end)

step('its code changed: a Hint on its lines', function()
  vim.api.nvim_buf_set_lines(buf, 4, 5, false, { 'RETRIES = 5' })
  check(wait(20000, function() return #stale(buf) == 1 end), 'one stale hint', H.diagnostics(buf))
  local hint = stale(buf)[1] or {}
  check(hint.severity == vim.diagnostic.severity.HINT and hint.lnum == 3 and hint.end_lnum == 4,
    'a Hint over lines 4-5', hint)
  check(hint.message and hint.message:find(('memory #%d was written about these lines'):format(id or -1), 1, true),
    'it names the memory', hint.message)
end)

step('its code actions: re-confirm, show what changed, retire', function()
  vim.api.nvim_win_set_cursor(0, { 4, 0 })
  offered = nil
  vim.lsp.buf.code_action()
  check(wait(10000, function() return offered end), 'the code action menu is offered')
  local titles = table.concat(offered or {}, '\n')
  for _, title in ipairs({ 'Re-confirm memory #', 'Show what changed under memory #', 'Retire memory #' }) do
    check(titles:find(title .. tostring(id), 1, true), title .. tostring(id), offered)
  end
end)

step('Show what changed opens the memory with its code then and now', function()
  local before = vim.api.nvim_list_wins()
  vim.lsp.buf.code_action({ apply = true, filter = function(a) return a.title:find('^Show what changed') ~= nil end })
  local shown ---@type string?
  check(wait(15000, function()
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if not vim.tbl_contains(before, win) then
        shown = H.text(vim.api.nvim_win_get_buf(win))
        return shown:find('RETRIES = 3', 1, true) and shown:find('RETRIES = 5', 1, true)
      end
    end
  end), 'a window shows the code as it was (RETRIES = 3) and as it is (RETRIES = 5)', shown)
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if not vim.tbl_contains(before, win) then
      vim.api.nvim_win_close(win, true)
    end
  end
  vim.api.nvim_set_current_buf(buf)
end)

step('Re-confirm: the hint goes, the store holds it current at its new lines', function()
  vim.cmd.write()
  seen.done = {}
  vim.api.nvim_win_set_cursor(0, { 4, 0 })
  vim.lsp.buf.code_action({ apply = true, filter = function(a) return a.title:find('^Re%-confirm') ~= nil end })
  check(wait(15000, function() return #stale(buf) == 0 end), 'the hint is gone', H.diagnostics(buf))
  local anchor = id and listed(id)
  check(anchor and anchor.state == 'current' and anchor.start_line == 4 and anchor.end_line == 5,
    'current at lines 4-5', anchor)
  check(#seen.messages == 0 or vim.iter(seen.messages):all(function(m) return (m.level or 0) < vim.log.levels.ERROR end),
    'no error was shown', seen.messages)
end)

H.finish()
