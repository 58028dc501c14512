--- `:checkhealth cenotaph`
local M = {}

local TIMEOUT_MS = 30000

---@param argv string[]
---@param env table?
---@param cwd string
---@return boolean ok, string output
local function run(argv, env, cwd)
  local ok, process = pcall(vim.system, argv, { cwd = cwd, env = env, text = true })
  if not ok then
    return false, tostring(process)
  end
  local out = process:wait(TIMEOUT_MS)
  if out.code ~= 0 then
    return false, vim.trim((out.stderr or '') .. '\n' .. (out.stdout or '')) .. (' (exit %d)'):format(out.code)
  end
  return true, out.stdout or ''
end

function M.check()
  local health = vim.health
  local client_mod = require('cenotaph.client')

  health.start('Neovim')
  if vim.fn.has('nvim-0.11') == 1 then
    health.ok('Neovim ' .. tostring(vim.version()))
  else
    health.error('Neovim 0.11 or newer is needed (vim.lsp.config / vim.lsp.enable)')
  end

  health.start('Server')
  local client = client_mod.get(vim.api.nvim_get_current_buf())
  local config = client and client.config or client_mod.config()
  local cmd = config.cmd
  if type(cmd) ~= 'table' or not cmd[1] then
    health.error('the `cenotaph` LSP config has no command list', 'Is neovim-plugin/ on the runtimepath?')
    return
  end
  local exe = vim.fn.exepath(cmd[1])
  if exe == '' then
    health.error(('`%s` not found on $PATH'):format(cmd[1]),
      { 'pip install cenotaph (or put its virtualenv\'s bin/ on $PATH)', "or vim.lsp.config('cenotaph', { cmd = { '/path/to/cenotaph', 'serve' } })" })
    return
  end
  health.ok(('server command: %s (%s)'):format(table.concat(cmd, ' '), exe))
  local program = assert(client_mod.program(cmd))
  local _, env, cwd = client_mod.cli_argv(client, { 'doctor' })
  local ok, version = run(vim.list_extend(program, { '--version' }), env, cwd)
  if ok then
    health.ok('version: ' .. vim.trim(version))
  else
    health.error('`cenotaph --version` failed: ' .. version)
  end

  health.start('Store')
  local argv = client_mod.cli_argv(client, { 'doctor', '--json' })
  local doctor_ok, output = run(assert(argv), env, cwd)
  local decoded_ok, decoded = pcall(vim.json.decode, doctor_ok and output or '')
  local doctor = doctor_ok and decoded_ok and type(decoded) == 'table' and decoded or nil
  if not doctor then
    health.error('`cenotaph doctor --json` failed: ' .. output)
  else
    health.ok(('store: %s (schema %s, %s %s, sqlite-vec %s)'):format(doctor.store, doctor.schema_version,
      doctor.sqlite_binding, doctor.sqlite_version, doctor.sqlite_vec_version))
    if doctor.model_matches_store then
      health.ok('embedding model: ' .. tostring(doctor.model))
    else
      health.warn(('embedding model %s, but the store was embedded with %s'):format(doctor.model, doctor.store_model),
        'run `cenotaph reindex`')
    end
    health.info(('project here: %s'):format(doctor.project ~= '' and doctor.project or '(global)'))
  end

  health.start('Clients')
  local clients = vim.lsp.get_clients({ name = client_mod.NAME })
  if #clients == 0 then
    health.info("no client running (open a file in a project, after vim.lsp.enable('cenotaph') or require('cenotaph').setup())")
  end
  local endpoints = require('cenotaph.endpoint').reports
  for _, c in ipairs(clients) do
    local state = c.initialized and 'running' or 'starting'
    health.ok(('client %d %s for %s'):format(c.id, state, c.root_dir or '(no root)'))
    local report = endpoints[c.id]
    if report then
      health.ok(('MCP endpoint: %s (project %s)'):format(report.url, report.project))
    else
      health.info('no MCP endpoint reported by this server')
    end
  end
  for _, file in ipairs(doctor and require('cenotaph.endpoint').from_files(doctor.project) or {}) do
    health.info(('MCP endpoint file for this project: %s'):format(file.url))
  end
end

return M
