--- Finding (or starting) the language server for a buffer, talking to it, and running the CLI
--- the same way the server is run.
local ui = require('cenotaph.ui')

local M = {}

M.NAME = 'cenotaph'
local START_TIMEOUT_MS = 20000

--- The resolved LSP config (lsp/cenotaph.lua plus every `vim.lsp.config('cenotaph', …)`).
---@return vim.lsp.Config
function M.config()
  return vim.lsp.config[M.NAME] or {}
end

---@param bufnr integer
---@return string? path of a file buffer
local function file_of(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= '' then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  return name ~= '' and vim.fs.normalize(name) or nil
end

---@param root string?
---@param path string
local function contains(root, path)
  return root ~= nil and (path == root or vim.startswith(path, root:gsub('/$', '') .. '/'))
end

--- The Cenotaph client serving `bufnr`: attached to it, bound to its ledger, or rooted above it.
---@param bufnr? integer
---@return vim.lsp.Client?
function M.get(bufnr)
  bufnr = ui.buffer(bufnr)
  local attached = vim.lsp.get_clients({ name = M.NAME, bufnr = bufnr })
  if attached[1] then
    return attached[1]
  end
  local ledger_client = vim.b[bufnr].cenotaph_client
  if ledger_client then
    local client = vim.lsp.get_client_by_id(ledger_client)
    if client and not client:is_stopped() then
      return client
    end
  end
  local path = file_of(bufnr) or vim.fs.normalize(assert(vim.uv.cwd()))
  local best ---@type vim.lsp.Client?
  for _, client in ipairs(vim.lsp.get_clients({ name = M.NAME })) do
    if contains(client.root_dir, path) and (not best or #client.root_dir > #best.root_dir) then
      best = client
    end
  end
  return best
end

--- The workspace root for a buffer, as `vim.lsp.enable` would find it (else the cwd).
---@param bufnr integer
---@return string
function M.root_for(bufnr)
  local config = M.config()
  local start = file_of(bufnr) or assert(vim.uv.cwd())
  local root = type(config.root_dir) == 'string' and config.root_dir --[[@as string]]
    or (config.root_markers and vim.fs.root(start, config.root_markers))
  return vim.fs.normalize(root or assert(vim.uv.cwd()))
end

--- Call `on_ready(client)` with an initialized client for `bufnr`, starting one if none runs.
---@param bufnr? integer
---@param on_ready fun(client: vim.lsp.Client)
function M.with_client(bufnr, on_ready)
  bufnr = ui.buffer(bufnr)
  local client = M.get(bufnr)
  if not client then
    local config = vim.deepcopy(M.config())
    if not config.cmd then
      ui.error('no `cenotaph` LSP config found: is the plugin on the runtimepath?')
      return
    end
    config.name = M.NAME
    config.root_dir = M.root_for(bufnr)
    local attach = file_of(bufnr) ~= nil and vim.tbl_contains(config.filetypes or {}, vim.bo[bufnr].filetype)
    local id = vim.lsp.start(config --[[@as vim.lsp.ClientConfig]], { bufnr = bufnr, attach = attach })
    client = id and vim.lsp.get_client_by_id(id)
    if not client then
      ui.error(('could not start %s'):format(table.concat(config.cmd --[[@as string[] ]], ' ')))
      return
    end
  end
  if client.initialized then
    on_ready(client)
    return
  end
  local waited, timer = 0, assert(vim.uv.new_timer())
  timer:start(20, 20, vim.schedule_wrap(function()
    waited = waited + 20
    if client.initialized or client:is_stopped() or waited >= START_TIMEOUT_MS then
      timer:stop()
      timer:close()
      if client.initialized then
        on_ready(client)
      else
        ui.error('the language server did not start (see :checkhealth cenotaph and :LspLog)')
      end
    end
  end))
end

--- A document the server can resolve a project from: the buffer's file when it is in the
--- client's workspace, else the workspace folder itself.
---@param client vim.lsp.Client
---@param bufnr integer
---@return string uri
function M.document_uri(client, bufnr)
  local path = file_of(bufnr)
  if path and contains(client.root_dir, path) then
    return vim.uri_from_fname(path)
  end
  return vim.uri_from_fname(client.root_dir or assert(vim.uv.cwd()))
end

--- Where a command acts: `{ project = … }` in a ledger buffer, else `{ uri = … }` (the server
--- resolves the document's project).
---@param client vim.lsp.Client
---@param bufnr integer
---@return { project?: string, uri?: string }
function M.scope(client, bufnr)
  local project = vim.b[bufnr].cenotaph_project
  if project ~= nil then
    return { project = project }
  end
  return { uri = M.document_uri(client, bufnr) }
end

--- Send a request; errors are shown, `on_result` gets the result only on success.
---@param client vim.lsp.Client
---@param method string
---@param params table
---@param bufnr integer?
---@param on_result fun(result: any)
---@param on_error? fun(err: lsp.ResponseError)
function M.request(client, method, params, bufnr, on_result, on_error)
  client:request(method, params, function(err, result)
    if err then
      if on_error then
        on_error(err)
      else
        ui.error(err.message or vim.inspect(err))
      end
      return
    end
    on_result(result)
  end, bufnr)
end

--- The project the server resolves for `bufnr` (a ledger buffer knows its own).
---@param client vim.lsp.Client
---@param bufnr integer
---@param on_project fun(project: string)
function M.project(client, bufnr, on_project)
  local project = vim.b[bufnr].cenotaph_project
  if project ~= nil then
    on_project(project)
    return
  end
  -- The ledger request is the server's one way to say which project a document belongs to.
  M.request(client, 'cenotaph/ledger', { uri = M.document_uri(client, bufnr) }, bufnr, function(result)
    on_project(result.project)
  end)
end

--- The program the server command runs (what comes before `serve`), and the global options
--- after `serve` (`--db`, `--project`) that the CLI must get too.
---@param cmd any the `cmd` of an LSP config
---@return string[]? program
---@return string[] options
function M.program(cmd)
  if type(cmd) ~= 'table' or #cmd == 0 then
    return nil, {}
  end
  for i, part in ipairs(cmd) do
    if part == 'serve' then
      return vim.list_slice(cmd, 1, i - 1), vim.list_slice(cmd, i + 1)
    end
  end
  return vim.deepcopy(cmd), {}
end

--- The CLI invocation matching the server's: `program subcommand options… args…`, run in the
--- client's workspace folder with the server's environment.
---@param client vim.lsp.Client?
---@param args string[] subcommand first
---@return string[]? argv
---@return table? env
---@return string cwd
function M.cli_argv(client, args)
  local config = client and client.config or M.config()
  local cwd = (client and client.root_dir) or M.root_for(vim.api.nvim_get_current_buf())
  local program, options = M.program(config.cmd)
  if not program then
    return nil, nil, cwd
  end
  local argv = vim.list_extend(program, { args[1] })
  vim.list_extend(argv, options)
  vim.list_extend(argv, vim.list_slice(args, 2))
  return argv, config.cmd_env, cwd
end

--- Run the CLI with `--json` and decode its output.
---@param client vim.lsp.Client?
---@param args string[] subcommand first
---@param on_done fun(ok: boolean, result: any) result is the decoded JSON, or an error message
function M.cli(client, args, on_done)
  local with_json = vim.deepcopy(args)
  table.insert(with_json, 2, '--json') -- before any `--`
  local argv, env, cwd = M.cli_argv(client, with_json)
  if not argv then
    on_done(false, 'the server command is not a list: cannot derive the CLI from it')
    return
  end
  local ok, started = pcall(vim.system, argv, { cwd = cwd, env = env, text = true }, vim.schedule_wrap(function(out)
    local decoded_ok, decoded = pcall(vim.json.decode, out.stdout or '', { luanil = { object = true, array = true } })
    if out.code == 0 and decoded_ok then
      on_done(true, decoded)
    elseif decoded_ok and type(decoded) == 'table' and decoded.error then
      on_done(false, decoded.error.message)
    else
      on_done(false, vim.trim((out.stderr or '') .. ' ' .. (out.stdout or '')) .. (' (exit %d)'):format(out.code))
    end
  end))
  if not ok then
    on_done(false, tostring(started))
  end
end

return M
