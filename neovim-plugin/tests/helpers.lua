-- Shared by the headless tests: checks, waiting, the plugin on the runtimepath, the real CLI.
local H = {}

H.plugin_root = vim.fs.dirname(vim.fs.dirname(vim.fs.normalize(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p'))))
H.passed, H.failed = 0, 0

--- Put the plugin on the runtimepath and source its plugin/ file, as a plugin manager would.
function H.load_plugin()
  vim.opt.runtimepath:prepend(H.plugin_root)
  vim.cmd.runtime('plugin/cenotaph.lua')
end

---@param cond any
---@param name string
---@param detail? any shown on failure
function H.check(cond, name, detail)
  if cond then
    H.passed = H.passed + 1
    io.stdout:write('ok   - ' .. name .. '\n')
  else
    H.failed = H.failed + 1
    io.stdout:write('FAIL - ' .. name .. (detail ~= nil and ('\n       ' .. vim.inspect(detail):gsub('\n', '\n       ')) or '') .. '\n')
  end
  return cond
end

---@param ms integer
---@param fn fun(): any
---@return boolean
function H.wait(ms, fn)
  return vim.wait(ms, function()
    local ok, value = pcall(fn)
    return ok and value and true or false
  end, 20)
end

--- Run a test step; an error inside counts as one failure and the run goes on.
---@param name string
---@param fn fun()
function H.step(name, fn)
  io.stdout:write('# ' .. name .. '\n')
  local ok, err = xpcall(fn, debug.traceback)
  if not ok then
    H.check(false, name .. ' raised', err)
  end
end

--- Run the real `cenotaph` CLI; returns the process result and the decoded JSON (if any).
---@param args string[]
---@param cwd string
---@return vim.SystemCompleted, any
function H.cli(args, cwd)
  local argv = vim.list_extend({ 'cenotaph' }, args)
  local out = vim.system(argv, { cwd = cwd, text = true }):wait(60000)
  local ok, decoded = pcall(vim.json.decode, out.stdout or '', { luanil = { object = true, array = true } })
  return out, ok and decoded or nil
end

--- Start the CLI without waiting.
---@param args string[]
---@param cwd string
---@param on_exit fun(out: vim.SystemCompleted)
---@return vim.SystemObj
function H.cli_async(args, cwd, on_exit)
  return vim.system(vim.list_extend({ 'cenotaph' }, args), { cwd = cwd, text = true }, on_exit)
end

---@param bufnr integer
---@return string
function H.text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n')
end

--- Diagnostics from Cenotaph on a buffer.
---@param bufnr integer
---@return vim.Diagnostic[]
function H.diagnostics(bufnr)
  return vim.tbl_filter(function(d)
    return d.source == 'cenotaph'
  end, vim.diagnostic.get(bufnr))
end

---@param bufnr integer
---@param name string
---@return vim.Diagnostic?
function H.flag(bufnr, name)
  for _, d in ipairs(H.diagnostics(bufnr)) do
    local data = d.user_data and d.user_data.lsp and d.user_data.lsp.data
    if data and data.name == name then
      return d
    end
  end
end

--- A second Neovim with its terminal UI, in a pty (as a person runs it: a long or two-line message
--- stops it at a hit-enter prompt, which `nvim --headless` never shows), the plugin set up and
--- editing `files`; driven over its RPC socket. It inherits the test's private store.
---@param files string[]
---@return { chan: integer, stop: fun() }
function H.tui(files)
  local socket = vim.fn.tempname()
  local argv = { vim.v.progpath, '--clean', '--listen', socket, '--cmd', 'set runtimepath^=' .. vim.fn.fnameescape(H.plugin_root),
    '--cmd', "lua require('cenotaph').setup()" }
  local job = vim.fn.jobstart(vim.list_extend(argv, files), { pty = true, width = 80, height = 24,
    env = { TERM = 'xterm-256color' }, on_stdout = function() end })
  -- The socket's file exists from its bind, a moment before it listens: connect until it answers.
  local chan
  assert(H.wait(10000, function()
    local ok, connected = pcall(vim.fn.sockconnect, 'pipe', socket, { rpc = true })
    chan = ok and connected > 0 and connected or nil
    return chan
  end), 'the Neovim with a UI did not start')
  return { chan = chan, stop = function() vim.fn.jobstop(job) end }
end

--- Print the summary line and exit with the right status.
--- What the plugin said and did, captured: `seen.done` gets each CenotaphCommandDone's data and
--- `seen.messages` each vim.notify (assign a new table to either to start over).
---@return { done: table[], messages: { msg: string, level: integer? }[] }
function H.capture()
  local seen = { done = {}, messages = {} }
  vim.api.nvim_create_autocmd('User', {
    pattern = 'CenotaphCommandDone',
    callback = function(ev) table.insert(seen.done, ev.data) end,
  })
  vim.notify = function(msg, level) table.insert(seen.messages, { msg = msg, level = level }) end
  return seen
end

function H.finish()
  io.stdout:write(('%d passed, %d failed\n'):format(H.passed, H.failed))
  io.stdout:flush()
  os.exit(H.failed == 0 and 0 or 1)
end

return H
