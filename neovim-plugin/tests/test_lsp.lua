-- The plugin against the real `cenotaph serve` on a store prepared with the real CLI.
-- Run by tests/run.sh: nvim --clean --headless -l tests/test_lsp.lua
-- (CENOTAPH_HOME, XDG_CACHE_HOME and XDG_STATE_HOME point into a temporary folder; `cenotaph` is on $PATH.)
package.path = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/?.lua;' .. package.path
local H = require('helpers')
local check, wait, step = H.check, H.wait, H.step

assert(vim.env.CENOTAPH_HOME and vim.env.XDG_STATE_HOME, 'run me through tests/run.sh (private store)')
H.load_plugin()

-- What the person answers: the reason prompts (vim.ui.input) and pickers (vim.ui.select).
local prompts, answers, pick, defaults = {}, {}, nil, {}
vim.ui.input = function(opts, on_confirm)
  table.insert(prompts, opts.prompt)
  table.insert(defaults, opts.default or '')
  on_confirm(table.remove(answers, 1))
end
local offered ---@type string[]
vim.ui.select = function(items, opts, on_choice)
  offered = vim.tbl_map(function(item)
    return opts.format_item and opts.format_item(item) or (type(item) == 'table' and item.title) or tostring(item)
  end, items)
  local chosen = pick and pick(items, offered) or nil
  on_choice(chosen and items[chosen] or nil, chosen)
end
local done = {} ---@type table[] CenotaphCommandDone data
vim.api.nvim_create_autocmd('User', {
  pattern = 'CenotaphCommandDone',
  callback = function(ev)
    table.insert(done, ev.data)
  end,
})
local messages = {}
vim.notify = function(msg, level)
  table.insert(messages, { msg = msg, level = level })
end

--- The CenotaphCommandDone data of `command`, once it has come.
---@param command string
---@return table?
local function finished(command)
  for _, data in ipairs(done) do
    if data.command == command then
      return data
    end
  end
end

---@param pattern string
---@return fun(items: table[], titles: string[]): integer?
local function choose(pattern)
  return function(_, titles)
    for i, title in ipairs(titles) do
      if title:find(pattern) then
        return i
      end
    end
  end
end

-- The workspace and the store.
local root = vim.fn.tempname()
local proj = root .. '/app'
vim.fn.mkdir(proj, 'p')
vim.fn.writefile({ 'project = "acme/app"' }, proj .. '/.cenotaph.toml')
vim.fn.writefile({ 'numpy==2.1.0', 'onnxruntime==1.17.0  # inference', 'pyyaml>=6' }, proj .. '/requirements.txt')
vim.fn.writefile({ 'import os', 'import json', 'from celery import Celery', 'import pandas as pd', '' }, proj .. '/app.py')

step('prepare the store with the CLI', function()
  local jobs = {
    H.cli_async({ 'abandon', 'onnxruntime', '--reason', 'SIGILL crash on Alpine musl libc', '--effort', '4' }, proj, function() end),
    H.cli_async({ 'abandon', 'celery', '--reason', 'workers leaked memory under load; moved to RQ', '--effort', '3' }, proj, function() end),
    H.cli_async({ 'remember', 'Always use poetry for dependency management in this repo' }, proj, function() end),
  }
  for _, job in ipairs(jobs) do
    local out = job:wait(60000)
    check(out.code == 0, 'cli prep exits 0', out.stderr)
  end
  -- The two are near-duplicates by cosine, so the second needs --force to be stored (and linked).
  local out, result = H.cli({ 'remember', '--force', '--json', 'Never use poetry for dependency management in this repo' }, proj)
  check(out.code == 0 and result and #result.contradictions == 1, 'opposite memories make a contradiction', out.stdout)
  local _, open = H.cli({ 'contradictions', '--json' }, proj)
  check(open and #open.contradictions == 1, 'cenotaph contradictions --json lists it', open)
end)

require('cenotaph').setup()

local req_buf, py_buf
step('the warning appears on the right line of requirements.txt', function()
  vim.cmd.edit(proj .. '/requirements.txt')
  req_buf = vim.api.nvim_get_current_buf()
  check(wait(20000, function() return H.flag(req_buf, 'onnxruntime') end), 'onnxruntime is flagged')
  local d = H.flag(req_buf, 'onnxruntime') or {}
  check(d.lnum == 1 and d.col == 0 and d.end_lnum == 1 and d.end_col == 11, 'at line 2, columns 0-11', d)
  check(d.severity == vim.diagnostic.severity.WARN and d.code == 'abandoned-approach', 'a Warning, code abandoned-approach', d)
  check(d.message and d.message:find('SIGILL crash on Alpine musl libc', 1, true), 'the message gives the reason', d.message)
  check(#H.diagnostics(req_buf) == 1, 'numpy and pyyaml are not flagged', H.diagnostics(req_buf))
end)

step('the warning appears on the right line of a Python file, from the same client', function()
  vim.cmd.edit(proj .. '/app.py')
  py_buf = vim.api.nvim_get_current_buf()
  check(wait(10000, function() return H.flag(py_buf, 'celery') end), 'the celery import is flagged')
  local d = H.flag(py_buf, 'celery') or {}
  check(d.lnum == 2 and d.col == 5 and d.end_col == 11, 'at line 3, columns 5-11', d)
  check(H.flag(py_buf, 'pandas') == nil and #H.diagnostics(py_buf) == 1, 'os, json and pandas are not flagged', H.diagnostics(py_buf))
  local clients = vim.lsp.get_clients({ name = 'cenotaph' })
  check(#clients == 1 and clients[1].root_dir == proj, 'one client for the root', vim.tbl_map(function(c) return c.root_dir end, clients))
  check(vim.lsp.buf_is_attached(req_buf, clients[1].id) and vim.lsp.buf_is_attached(py_buf, clients[1].id), 'both buffers attached to it')
end)

step('hover shows the reason', function()
  vim.cmd.buffer(req_buf)
  vim.api.nvim_win_set_cursor(0, { 2, 4 })
  vim.lsp.buf.hover()
  local float
  check(wait(5000, function()
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(win).relative ~= '' then
        float = win
        return true
      end
    end
  end), 'a hover float opens')
  local text = float and H.text(vim.api.nvim_win_get_buf(float)) or ''
  check(text:find('SIGILL crash on Alpine musl libc', 1, true) and text:find('effort 4/5', 1, true), 'it tells the reason and effort', text)
  if float then
    vim.api.nvim_win_close(float, true)
  end
end)

local recall_before
step('code actions list Silence and Reinstate', function()
  -- What `cenotaph recall` says before the reinstatement (runs meanwhile).
  recall_before = H.cli_async({ 'recall', '--json', 'onnxruntime' }, proj, function() end)
  vim.cmd.buffer(req_buf)
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  offered, pick = nil, nil
  vim.lsp.buf.code_action()
  check(wait(5000, function() return offered end), 'the code action menu is offered')
  local titles = offered or {}
  local function has(title)
    return vim.tbl_contains(titles, title)
  end
  check(has("Silence 'onnxruntime' in this project") and has("Silence 'onnxruntime' everywhere"), 'Silence (project, everywhere)', titles)
  check(has("Reinstate 'onnxruntime' (it works now)"), 'Reinstate', titles)
end)

step('applying Reinstate asks why, clears the diagnostic and changes what recall returns', function()
  local out = recall_before:wait(60000)
  local before = vim.json.decode(out.stdout)
  local first = before.results[1] or {}
  check(first.result_type == 'abandoned_warning' and first.name == 'onnxruntime', 'before: recall warns that onnxruntime was abandoned', first)

  prompts, answers, done = {}, { 'It works on glibc now' }, {}
  pick = choose('^Reinstate')
  vim.lsp.buf.code_action()
  check(wait(10000, function() return H.flag(req_buf, 'onnxruntime') == nil end), 'the diagnostic is cleared')
  check(prompts[1] == "Why reinstate 'onnxruntime'? ", 'the reason was asked with vim.ui.input', prompts)
  check(wait(5000, function() return finished('cenotaph.reinstate') end), 'the server ran cenotaph.reinstate')
  local ran = finished('cenotaph.reinstate') or {}
  check(ran.result and ran.result.done == true and ran.argument.reason == 'It works on glibc now', 'with the reason given', ran)

  local _, after = H.cli({ 'recall', '--json', 'onnxruntime' }, proj)
  local warned = vim.iter((after or {}).results or {}):any(function(r)
    return r.result_type == 'abandoned_warning' and r.name == 'onnxruntime'
  end)
  check(after and not warned, 'after: recall no longer warns about onnxruntime', after and after.results)
end)

local ledger_buf
step(':Cenotaph ledger shows the open contradiction with its diagnostic', function()
  vim.cmd.buffer(py_buf)
  vim.cmd('Cenotaph ledger')
  check(wait(10000, function() return vim.api.nvim_buf_get_name(0) == 'cenotaph://ledger/acme/app.md' end),
    'the ledger buffer opens', vim.api.nvim_buf_get_name(0))
  ledger_buf = vim.api.nvim_get_current_buf()
  local text = H.text(ledger_buf)
  check(text:find('## Open contradictions (1)', 1, true) and text:find('Never use poetry for dependency management', 1, true),
    'it lists the open contradiction', text)
  check(vim.bo[ledger_buf].modifiable == false and vim.bo[ledger_buf].buftype == 'nofile', 'read-only')
  check(wait(5000, function() return #H.diagnostics(ledger_buf) == 1 end), 'the server puts a diagnostic on it')
  local d = H.diagnostics(ledger_buf)[1] or {}
  local header = vim.api.nvim_buf_get_lines(ledger_buf, d.lnum or 0, (d.lnum or 0) + 1, false)[1] or ''
  check(d.code == 'open-contradiction' and header:find('^### contradiction #'), 'on the contradiction', { d, header })

  -- :edit! reads it again through its BufReadCmd.
  vim.bo[ledger_buf].readonly, vim.bo[ledger_buf].modifiable = false, true
  vim.api.nvim_buf_set_lines(ledger_buf, 0, -1, false, {})
  vim.cmd('edit!')
  check(wait(5000, function() return H.text(ledger_buf):find('## Open contradictions (1)', 1, true) end),
    ':edit! fetches it again', H.text(ledger_buf))
  check(vim.api.nvim_get_current_buf() == ledger_buf and vim.bo[ledger_buf].modifiable == false, 'the same read-only buffer')
  check(wait(5000, function() return #H.diagnostics(ledger_buf) == 1 end), 'still with its diagnostic')
end)

step('resolving it in the ledger clears it', function()
  local d = H.diagnostics(ledger_buf)[1] or { lnum = 0 }
  local data = d.user_data and d.user_data.lsp.data or {}
  vim.api.nvim_win_set_cursor(0, { d.lnum + 1, 0 })
  prompts, answers, done = {}, { 'We standardised on poetry' }, {}
  pick = choose(('^Keep #%d'):format(data.memoryA or -1))
  vim.lsp.buf.code_action()
  check(wait(5000, function() return offered and vim.iter(offered):any(function(t) return t:find('Not a contradiction', 1, true) end) end),
    'resolve and dismiss actions are offered', offered)
  check(wait(10000, function() return #H.diagnostics(ledger_buf) == 0 end), 'the diagnostic is cleared')
  check(wait(5000, function() return H.text(ledger_buf):find('## Open contradictions (0)', 1, true) end),
    'the ledger is fetched again and shows none', H.text(ledger_buf))
  check(wait(5000, function() return finished('cenotaph.resolveContradiction') end), 'resolveContradiction ran')
  local ran = finished('cenotaph.resolveContradiction') or { argument = {} }
  check(ran.argument.keep == 'a' and ran.argument.reason == 'We standardised on poetry', 'with keep=a and the reason', ran)
  local _, open = H.cli({ 'contradictions', '--json' }, proj)
  check(open and #open.contradictions == 0, 'cenotaph contradictions --json: none open', open)
end)

step('a change made by `cenotaph abandon` in a shell shows up within a second', function()
  vim.cmd.buffer(py_buf)
  local exited, flagged
  local job = H.cli_async({ 'abandon', 'pandas', '--reason', 'too much memory for our data sizes; use polars' }, proj, function()
    exited = vim.uv.hrtime()
  end)
  check(wait(60000, function()
    flagged = flagged or (H.flag(py_buf, 'pandas') and vim.uv.hrtime())
    return exited and flagged or (exited and vim.uv.hrtime() - exited > 3e9)
  end), 'the CLI finished')
  check(job:wait(1000).code == 0, 'and succeeded')
  check(flagged, 'pandas is flagged in the open buffer')
  -- From the CLI's exit; it may show before the exit is even noticed (a negative time).
  local elapsed = (exited and flagged) and (flagged - exited) / 1e6 or math.huge
  check(elapsed < 1000, ('within a second of the CLI exiting (%.0f ms)'):format(elapsed))
  local d = H.flag(py_buf, 'pandas') or {}
  check(d.lnum == 3 and d.col == 7 and d.end_col == 13, 'on its import line', d)
  check(wait(2000, function() return H.text(ledger_buf):find('**pandas**', 1, true) end), 'the open ledger shows it too')
end)

step(':Cenotaph suppress silences a name in this project', function()
  prompts, answers, done = {}, { 'legacy module, being rewritten' }, {}
  vim.cmd.buffer(py_buf)
  vim.cmd('Cenotaph suppress celery')
  check(wait(10000, function() return H.flag(py_buf, 'celery') == nil end), 'celery is no longer flagged')
  check(H.flag(py_buf, 'pandas') ~= nil, 'pandas still is')
  check(prompts[1] == "Why silence 'celery' in this project? ", 'the reason was asked', prompts)
end)

step(':Cenotaph reinstate and :Cenotaph abandon', function()
  prompts, answers, done = {}, { 'polars had its own problems' }, {}
  vim.cmd('Cenotaph reinstate pandas')
  check(wait(10000, function() return H.flag(py_buf, 'pandas') == nil end), 'pandas is no longer flagged')
  check(wait(5000, function() return finished('cenotaph.reinstate') end), 'reinstate ran')
  answers = { 'the stdlib json is too slow for us; use orjson' }
  vim.cmd('Cenotaph abandon json')
  check(wait(10000, function() return finished('cenotaph.abandon') end), 'abandon ran')
  local ran = finished('cenotaph.abandon') or { argument = {} }
  check(ran.result and ran.result.done == true and ran.argument.uri == vim.uri_from_fname(proj .. '/app.py')
    and ran.argument.scope == 'project', 'for the document\'s project', ran)
end)

local remembered ---@type integer?
step(':Cenotaph remember on a visual selection', function()
  local scratch = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_buf_set_name(scratch, proj .. '/NOTES.md')
  vim.api.nvim_set_current_buf(scratch)
  vim.api.nvim_buf_set_lines(scratch, 0, -1, false, { 'intro', 'Deploys go through the staging cluster first.', 'outro' })
  done = {}
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  vim.cmd('normal! V')
  vim.cmd('normal! \27')
  vim.cmd("'<,'>Cenotaph remember")
  check(wait(15000, function() return finished('cenotaph.remember') end), 'remember ran')
  local r = finished('cenotaph.remember') or {}
  check(r.argument and r.argument.text == 'Deploys go through the staging cluster first.', 'the selected line is the text', r.argument)
  check(r.result and r.result.done == true and r.result.message:find('^remembered #'), 'stored', r.result)
  remembered = r.result and r.result.id
end)

step('<Plug>(cenotaph-remember-as) asks the kind of the selection', function()
  local notes = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(notes, -1, -1, false, { 'We chose SQLite over a server database for the single-user store.' })
  done, offered = {}, nil
  pick = choose('^decision$')
  vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(notes), 0 })
  vim.api.nvim_feedkeys(vim.keycode('V<Plug>(cenotaph-remember-as)'), 'x', false)
  check(wait(15000, function() return finished('cenotaph.remember') end), 'remember ran', offered)
  check(vim.deep_equal(offered, require('cenotaph').KINDS), 'the kinds were offered', offered)
  local r = finished('cenotaph.remember') or {}
  check(r.argument and r.argument.kind == 'decision' and r.argument.text:find('^We chose SQLite'), 'as a decision', r.argument)
  local client = vim.lsp.get_clients({ name = 'cenotaph' })[1]
  local reply = client:request_sync('cenotaph/recall', { query = 'SQLite single-user store', k = 3, kinds = { 'decision' },
    uri = vim.uri_from_fname(proj .. '/NOTES.md') }, 30000) or {}
  local first = reply.result and reply.result.results and reply.result.results[1] or {}
  check(first.id == (r.result and r.result.id) and first.kind == 'decision', 'the server stored it as a decision', reply)
  pick = nil
end)

step(':Cenotaph recall picks a memory into a scratch buffer, through the server', function()
  vim.cmd.buffer(py_buf)
  offered = nil
  pick = choose('staging cluster')
  -- Every process the plugin starts meanwhile is recorded: recall must not start one.
  local spawned, system = {}, vim.system
  vim.system = function(cmd, ...)
    table.insert(spawned, cmd)
    return system(cmd, ...)
  end
  vim.cmd('Cenotaph recall how do deploys work')
  local opened = wait(60000, function() return vim.api.nvim_buf_get_name(0):match('^cenotaph://memory/%d+$') end)
  vim.system = system
  check(opened, 'a memory opens', { name = vim.api.nvim_buf_get_name(0), offered = offered, messages = messages })
  check(H.text(0):find('Deploys go through the staging cluster first.', 1, true), 'with its content', H.text(0))
  check(#spawned == 0, 'no process was started for it', spawned)
  -- The recall log says who asked: the CLI records `cli`, the language server the editor. The
  -- server writes it after answering, in the background: polled until it is there.
  local python = vim.fs.dirname(vim.fn.exepath('cenotaph')) .. '/python'
  local out
  local recorded = wait(30000, function()
    out = vim.system({ python, '-c', 'import json, sqlite3, sys\n'
      .. 'rows = sqlite3.connect(sys.argv[1]).execute("SELECT actor FROM recall_log WHERE query = ?", (sys.argv[2],))\n'
      .. 'print(json.dumps([r[0] for r in rows]))', vim.env.CENOTAPH_HOME .. '/cenotaph.db', 'how do deploys work' },
      { text = true }):wait(30000)
    return vim.deep_equal(vim.json.decode(out.stdout or 'null'), { 'nvim' })
  end)
  check(recorded, 'the server recorded the recall as nvim', out)
end)

step("an agent's proposal reaches the ledger; :Cenotaph proposals accepts it", function()
  -- An agent, through `cenotaph mcp` on stdio, refutes the memory: that becomes a proposal.
  local replies = ''
  local agent = vim.system({ 'cenotaph', 'mcp' }, {
    cwd = proj,
    stdin = true,
    stdout = function(_, data)
      replies = replies .. (data or '')
    end,
  })
  agent:write({
    vim.json.encode({ jsonrpc = '2.0', id = 1, method = 'initialize', params = {
      protocolVersion = '2025-06-18', capabilities = vim.empty_dict(), clientInfo = { name = 'test-agent', version = '1' } } }),
    vim.json.encode({ jsonrpc = '2.0', method = 'notifications/initialized' }),
    vim.json.encode({ jsonrpc = '2.0', id = 2, method = 'tools/call', params = { name = 'change',
      arguments = { memory_id = remembered or 0, action = 'refute', reason = 'staging was retired in March' } } }),
  })
  check(wait(60000, function() return replies:find('"id":2', 1, true) end), 'the agent gets an answer', replies)
  agent:write(nil)
  agent:wait(10000)
  check(replies:find('"status":"proposed"', 1, true), 'the refutation is a proposal', replies)
  check(wait(3000, function() return H.text(ledger_buf):find('## Pending proposals (1)', 1, true) end),
    'the open ledger shows it', H.text(ledger_buf))

  vim.cmd.buffer(py_buf)
  done, offered = {}, nil
  local picks = { choose('mcp:test%-agent proposes to refute memory:' .. tostring(remembered)), choose('^Accept$') }
  pick = function(items, titles)
    return table.remove(picks, 1)(items, titles)
  end
  local spawned, system = {}, vim.system
  vim.system = function(cmd, ...)
    table.insert(spawned, cmd)
    return system(cmd, ...)
  end
  vim.cmd('Cenotaph proposals')
  check(wait(15000, function() return finished('cenotaph.acceptProposal') end), 'the proposal is accepted', offered)
  vim.system = system
  check(#spawned == 0, 'listed from the server\'s ledger, no process started', spawned)
  local ran = finished('cenotaph.acceptProposal') or {}
  check(ran.result and ran.result.done == true, 'by the server', ran)
  check(wait(3000, function() return H.text(ledger_buf):find('## Pending proposals (0)', 1, true) end),
    'and leaves the ledger', H.text(ledger_buf))
  pick = nil
end)

step('a candidate from history: the ledger offers to edit its drafted reason, then accept', function()
  local claude = root .. '/claude'
  local sessions = claude .. '/projects/' .. proj:gsub('[^%w]', '-')
  vim.fn.mkdir(sessions, 'p')
  vim.fn.mkdir(root .. '/codex', 'p')
  vim.fn.writefile({ vim.json.encode({ type = 'user', uuid = 'u1', sessionId = 's1', timestamp = '2026-03-02T10:00:00Z',
    cwd = proj, userType = 'external', message = { role = 'user', content = 'stop using pyyaml, we use tomllib' } }) },
    sessions .. '/s1.jsonl')
  local out = H.cli({ 'mine', 'transcripts', '--claude-dir', claude, '--codex-dir', root .. '/codex' }, proj)
  check(out.code == 0 and out.stdout:find('abandon pyyaml', 1, true), 'the CLI mines the transcript', out)
  check(wait(5000, function() return H.text(ledger_buf):find('## Candidates from history (1)', 1, true) end),
    'the open ledger lists the candidate', H.text(ledger_buf))
  local line
  for i, text in ipairs(vim.api.nvim_buf_get_lines(ledger_buf, 0, -1, false)) do
    if text:find('^%- candidate #') then
      line = i - 1
    end
  end
  local client = vim.lsp.get_clients({ name = 'cenotaph' })[1]
  local position = { line = line or 0, character = 2 }
  local replies = vim.lsp.buf_request_sync(ledger_buf, 'textDocument/codeAction', {
    textDocument = { uri = vim.uri_from_bufnr(ledger_buf) }, range = { start = position, ['end'] = position },
    context = { diagnostics = {} } }, 10000) or {}
  local edit
  for _, reply in pairs(replies) do
    for _, action in ipairs(reply.result or {}) do
      if action.title == "Edit the reason, then accept 'pyyaml'" then
        edit = action.command
      end
    end
  end
  check(edit and edit.command == 'cenotaph.acceptCandidate', 'the candidate offers to edit its reason', replies)
  prompts, defaults, done, answers = {}, {}, {}, { 'YAML config was dropped for TOML' }
  require('cenotaph.commands').run(edit.command, edit, { client_id = client.id, bufnr = ledger_buf })
  check(wait(15000, function() return finished('cenotaph.acceptCandidate') end), 'the candidate is accepted')
  check((defaults[1] or ''):find('said in a Claude Code session on 2026-03-02', 1, true),
    'the prompt starts from the drafted reason', defaults)
  local ran = finished('cenotaph.acceptCandidate') or {}
  check(ran.result and ran.result.done and ran.argument.reason == 'YAML config was dropped for TOML', 'with the edited reason', ran)
  check(wait(5000, function() return H.text(ledger_buf):find('## Candidates from history (0)', 1, true) end),
    'it leaves the candidates', H.text(ledger_buf))
  check(H.text(ledger_buf):find('**pyyaml** (pypi)', 1, true), 'and enters the graveyard', H.text(ledger_buf))
end)

step('with ask_reason = false the server asks, through window/showMessageRequest', function()
  require('cenotaph').setup({ ask_reason = false })
  vim.cmd.buffer(py_buf)
  prompts, done, offered = {}, {}, nil
  pick = choose('^Too slow$')
  vim.cmd('Cenotaph abandon requests')
  check(wait(10000, function() return finished('cenotaph.abandon') end), 'abandon ran')
  local ran = finished('cenotaph.abandon') or { argument = {} }
  check(#prompts == 0 and ran.argument.reason == nil, 'no reason was asked by the plugin', { prompts, ran.argument })
  check(offered and vim.tbl_contains(offered, 'Too slow') and vim.tbl_contains(offered, 'Cancel'),
    "the server's choices were offered with vim.ui.select", offered)
  check(ran.result and ran.result.done == true and ran.result.message:find('Too slow', 1, true), 'and the chosen one used', ran.result)
  pick = nil
  require('cenotaph').setup()
end)

-- A POST of MCP `initialize` to the endpoint, as an agent plugin would send it.
local MCP_INITIALIZE = [[
import json, sys, urllib.request
body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "agent", "version": "1"}}}).encode()
request = urllib.request.Request(sys.argv[1], data=body, method="POST", headers={
    "Authorization": "Bearer " + sys.argv[2], "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream"})
with urllib.request.urlopen(request, timeout=10) as response:
    print(response.status, response.read().decode())
]]

step(':Cenotaph endpoint shows the MCP endpoint the server reported', function()
  local client = vim.lsp.get_clients({ name = 'cenotaph' })[1]
  local reports = require('cenotaph.endpoint').reports
  check(wait(15000, function() return reports[client.id] end), 'the server reported cenotaph/mcpEndpoint')
  local report = reports[client.id] or {}
  check(report.project == 'acme/app' and (report.url or ''):match('^http://127%.0%.0%.1:%d+/'), 'for this project, on loopback', report)
  local files = require('cenotaph.endpoint').from_files('acme/app')
  check(#files == 1 and files[1].url == report.url and files[1].token == report.token, 'the same as its endpoint file', files)

  vim.cmd.buffer(py_buf)
  vim.cmd('Cenotaph endpoint')
  check(wait(5000, function() return vim.api.nvim_buf_get_name(0) == 'cenotaph://endpoint/acme/app' end),
    'the endpoint opens in a scratch buffer', messages)
  local text = H.text(0)
  check(text:find('URL:    ' .. tostring(report.url), 1, true) and text:find('Authorization: Bearer ' .. tostring(report.token), 1, true),
    'with its URL and token', text)
  check(vim.fn.getreg('"') == report.url, 'the URL is in the unnamed register', vim.fn.getreg('"'))
  local ok, map = pcall(vim.json.decode, text:match('```json\n(.-)\n```') or '')
  local server = ok and map.mcpServers.cenotaph or {}
  check(server.url == report.url and server.headers.Authorization == 'Bearer ' .. tostring(report.token),
    'and a JSON server map for agent plugins', map)

  local out = vim.system({ 'python', '-c', MCP_INITIALIZE, server.url or '', report.token or '' }, { text = true }):wait(20000)
  check(out.code == 0 and out.stdout:find('^200 ') and out.stdout:find('"serverInfo"', 1, true),
    'an agent can initialize MCP with that URL and token', { out.stdout, out.stderr })
  local refused = vim.system({ 'python', '-c', MCP_INITIALIZE, server.url or '', 'not-the-token' }, { text = true }):wait(20000)
  check(refused.code ~= 0 and refused.stderr:find('401', 1, true), 'and not without it', refused.stderr)
end)

step(':checkhealth cenotaph reports OK', function()
  vim.cmd.buffer(py_buf)
  vim.cmd('silent checkhealth cenotaph')
  local text = H.text(0)
  check(text:find('OK') and text:find('version: cenotaph %d') and text:find('store: ' .. vim.pesc(vim.env.CENOTAPH_HOME)),
    'server version and store are OK', text)
  check(text:find('embedding model:', 1, true), 'the model is reported', text)
  check(text:find('client %d+ running for ' .. vim.pesc(proj)), 'the running client is reported', text)
  check(text:find('OK MCP endpoint: http://127.0.0.1:%d+/mcp %(project acme/app%)'), 'with its MCP endpoint', text)
  check(not text:find('ERROR') and not text:find('WARNING'), 'no error or warning', text)
end)

vim.lsp.stop_client(vim.lsp.get_clients({ name = 'cenotaph' }), true)
H.finish()
