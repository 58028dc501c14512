--- The MCP endpoint each language server reports (`cenotaph/mcpEndpoint`,
--- shared_schema/endpoint.schema.json), for the agent plugin in use.
local client_mod = require('cenotaph.client')
local config = require('cenotaph.config')
local ui = require('cenotaph.ui')

local M = {}

---@type table<integer, cenotaph.Endpoint> by client id
M.reports = {}

---@param report any
---@return boolean
local function valid(report)
  return type(report) == 'table' and type(report.url) == 'string' and type(report.token) == 'string'
    and type(report.project) == 'string' and report.url:match('^http://127%.0%.0%.1:%d+/') ~= nil
end

--- `cenotaph/mcpEndpoint` from a server.
---@param report cenotaph.Endpoint
---@param ctx { client_id: integer }
function M.on_report(report, ctx)
  if not valid(report) then
    ui.warn('ignoring a malformed MCP endpoint report: ' .. vim.inspect(report))
    return
  end
  M.reports[ctx.client_id] = report
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  vim.api.nvim_exec_autocmds('User', {
    pattern = 'CenotaphMcpEndpoint',
    modeline = false,
    data = { client_id = ctx.client_id, url = report.url, token = report.token, project = report.project },
  })
  if config.options.on_endpoint and client then
    config.options.on_endpoint(report, client)
  end
end

--- The endpoint files live servers leave under $XDG_STATE_HOME/cenotaph/endpoints/ (0600).
---@param project string?
---@return cenotaph.Endpoint[]
function M.from_files(project)
  local state = vim.env.XDG_STATE_HOME
  if not (state and state:sub(1, 1) == '/') then
    state = vim.fs.joinpath(assert(vim.uv.os_homedir()), '.local', 'state')
  end
  local found = {}
  local folder = vim.fs.joinpath(state, 'cenotaph', 'endpoints')
  for name, kind in vim.fs.dir(folder) do
    local pid = tonumber(name:match('^(%d+)%.json$'))
    -- A file whose process is gone is stale.
    if kind == 'file' and pid and vim.uv.kill(pid, 0) == 0 then
      local ok, report = pcall(function()
        return vim.json.decode(table.concat(vim.fn.readfile(vim.fs.joinpath(folder, name)), '\n'))
      end)
      if ok and valid(report) and (project == nil or report.project == project) then
        table.insert(found, report)
      end
    end
  end
  return found
end

--- The endpoint serving the current buffer's project: reported by its client, else from a file.
---@param bufnr? integer
---@param on_endpoint fun(report: cenotaph.Endpoint?, project: string?)
function M.current(bufnr, on_endpoint)
  bufnr = ui.buffer(bufnr)
  client_mod.with_client(bufnr, function(client)
    if M.reports[client.id] then
      on_endpoint(M.reports[client.id], M.reports[client.id].project)
      return
    end
    client_mod.project(client, bufnr, function(project)
      on_endpoint(M.from_files(project)[1], project)
    end)
  end)
end

--- A client configuration for MCP clients that take a JSON server map (mcphub.nvim, Claude
--- Code's .mcp.json, …).
---@param report cenotaph.Endpoint
---@return string
function M.json(report)
  return vim.json.encode({
    mcpServers = {
      cenotaph = { type = 'http', url = report.url, headers = { Authorization = 'Bearer ' .. report.token } },
    },
  })
end

--- `:Cenotaph endpoint`: show the URL (and how to authenticate), copy the URL to the `"` register
--- (and `+` when there is a clipboard).
---@param bufnr? integer
function M.show(bufnr)
  M.current(bufnr, function(report, project)
    if not report then
      ui.warn(('no MCP endpoint reported for %s yet'):format(project and ('"' .. project .. '"') or 'this project'))
      return
    end
    vim.fn.setreg('"', report.url)
    if vim.fn.has('clipboard') == 1 then
      vim.fn.setreg('+', report.url)
    end
    ui.scratch('cenotaph://endpoint/' .. report.project, {
      '# Cenotaph MCP endpoint · ' .. (report.project ~= '' and report.project or 'global scope'),
      '',
      'URL:    ' .. report.url,
      'Header: Authorization: Bearer ' .. report.token,
      '',
      'For an agent plugin that reads an MCP server map (e.g. mcphub.nvim servers.json):',
      '',
      '```json',
      M.json(report),
      '```',
    })
    ui.notify('Cenotaph MCP endpoint: ' .. report.url .. ' (URL copied)')
  end)
end

return M
