-- Reviewing candidates from history in bulk (issue 39): `:Cenotaph reject 13 19 11` rejects all
-- three, a filter shows what it would touch and asks first, and a rejection is undone with
-- `:Cenotaph reopen`. Run by tests/run.sh against the real `cenotaph serve` on a private store.
package.path = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/?.lua;' .. package.path
local H = require('helpers')
local check, wait, step = H.check, H.wait, H.step

assert(vim.env.CENOTAPH_HOME and vim.env.XDG_STATE_HOME, 'run me through tests/run.sh (private store)')
H.load_plugin()

local answer ---@type string? the confirmation to pick, by its title's first word
local offered, asked = {}, {}
vim.ui.select = function(items, opts, on_choice)
  offered = { prompt = opts.prompt, items = items }
  for i, item in ipairs(items) do
    if answer and tostring(item):find('^' .. answer) then
      return on_choice(item, i)
    end
  end
  on_choice(nil, nil)
end
vim.ui.input = function(opts, on_confirm)
  table.insert(asked, opts.prompt)
  on_confirm('noise from the build image')
end
local seen = H.capture()
local floats = {}
require('cenotaph.ui').float = function(markdown)
  table.insert(floats, markdown)
end

---@param command string
---@return table[]
local function finished(command)
  return vim.tbl_filter(function(d) return d.command == command end, seen.done)
end

local root = vim.fn.tempname()
local proj = root .. '/app'
vim.fn.mkdir(proj, 'p')
local function git(args, env)
  local out = vim.system(vim.list_extend({ 'git', '-C', proj }, args), { env = env, text = true }):wait(30000)
  assert(out.code == 0, out.stderr)
  return vim.trim(out.stdout)
end
local function commit(message, files, at)
  for name, text in pairs(files) do
    vim.fn.writefile(vim.split(text, '\n'), proj .. '/' .. name)
  end
  git({ 'add', '-A' })
  git({ '-c', 'user.name=Ada', '-c', 'user.email=ada@example.com', 'commit', '-qm', message },
    { GIT_AUTHOR_DATE = at, GIT_COMMITTER_DATE = at })
  return git({ 'rev-parse', 'HEAD' })
end
git({ 'init', '-q' })
vim.fn.writefile({ 'project = "acme/bulk"' }, proj .. '/.cenotaph.toml')
commit('Start', { ['requirements.txt'] = 'requests\nujson\nsix\nnose\nmock' }, '2024-01-01T10:00:00+00:00')
local dropped = commit('Drop ujson: it crashes on 3.12', { ['requirements.txt'] = 'requests\nsix\nnose\nmock' },
  '2024-02-01T10:00:00+00:00')
commit('Tidy', { ['requirements.txt'] = 'requests' }, '2024-02-02T10:00:00+00:00')
vim.fn.writefile({ 'import requests', '' }, proj .. '/main.py')

local ids = {} ---@type table<string, integer>
local function pending()
  local _, listed = H.cli({ 'proposals', '--min-confidence', '0', '--json' }, proj)
  local names = {}
  for _, p in ipairs(listed and listed.proposals or {}) do
    names[p.arguments.name] = p.id
  end
  return names
end

step('mine with the CLI', function()
  local out = H.cli({ 'mine', 'git' }, proj)
  check(out.code == 0, 'mine git', out.stderr)
  ids = pending()
  check(ids.ujson and ids.six and ids.nose and ids.mock, 'four candidates', ids)
end)

require('cenotaph').setup()
vim.cmd.edit(proj .. '/main.py')
check(wait(60000, function() return #vim.lsp.get_clients({ name = 'cenotaph', bufnr = 0 }) > 0 end), 'the server is up')

step(':Cenotaph reject with a word that is no id nor filter sends nothing', function()
  seen.messages = {}
  vim.cmd(('Cenotaph reject %d bogus'):format(ids.six))
  check(vim.iter(seen.messages):any(function(m) return m.msg:find('bogus', 1, true) end), 'the word is named', messages)
  check(#finished('cenotaph.decideCandidates') == 0, 'no command was sent')
end)

step('a filter shows what it would touch and asks; Cancel decides nothing', function()
  answer, floats = 'Cancel', {}
  vim.cmd('Cenotaph reject commit=' .. dropped:sub(1, 7))
  check(wait(20000, function() return #finished('cenotaph.decideCandidates') == 1 end), 'the preview ran', seen.messages)
  local preview = finished('cenotaph.decideCandidates')[1]
  check(preview.argument.preview and vim.deep_equal(preview.result.ids, { ids.ujson }), 'ujson only', preview)
  check(offered.prompt == 'reject 1 candidate?' and offered.items[1] == 'Reject 1', 'asked to confirm', offered)
  check(floats[1] and floats[1]:find(('#%d ujson (pypi)'):format(ids.ujson), 1, true), 'the list is shown', floats)
  check(vim.deep_equal(pending(), ids), 'nothing changed')
end)

local batch
step(':Cenotaph reject 13 19 11 rejects all three, after the list and a reason', function()
  answer, seen.done, asked = 'Reject', {}, {}
  vim.cmd(('Cenotaph reject %d %d %d'):format(ids.six, ids.nose, ids.mock))
  check(wait(20000, function() return #finished('cenotaph.decideCandidates') == 2 end), 'preview, then decision',
    seen.messages)
  local decided = finished('cenotaph.decideCandidates')[2] or {}
  check(decided.result and decided.result.done and #decided.result.ids == 3, 'three decided', decided)
  check(decided.argument and decided.argument.reason == 'noise from the build image', 'with the reason asked',
    decided.argument)
  check(asked[1] == 'Why reject these 3 candidates? ', 'the reason was asked once', asked)
  local left = pending()
  check(left.ujson and left.requests == nil and left.six == nil and left.nose == nil and left.mock == nil,
    'only ujson is still pending', left)
  batch = decided.result and decided.result.id
end)

step(':Cenotaph reopen batch=N undoes it', function()
  seen.done = {}
  vim.cmd('Cenotaph reopen batch=' .. tostring(batch))
  check(wait(20000, function() return #finished('cenotaph.reopenCandidates') == 1 end), 'reopen ran', seen.messages)
  check(vim.deep_equal(pending(), ids), 'every candidate is pending again', pending())
end)

step(':Cenotaph proposals names the candidates waiting, not "no pending proposals"', function()
  seen.messages = {}
  vim.cmd('Cenotaph proposals')
  check(wait(10000, function() return #seen.messages > 0 end), 'answered')
  check(seen.messages[1] and seen.messages[1].msg:find('4 candidates from history wait', 1, true), 'counts them', seen.messages)
end)

vim.lsp.stop_client(vim.lsp.get_clients({ name = 'cenotaph' }), true)
H.finish()
