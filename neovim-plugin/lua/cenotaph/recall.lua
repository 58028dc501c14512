--- Recall, picked with `vim.ui.select`. Recall asks the running server (`cenotaph/recall`,
--- answered from its loaded model in milliseconds); the CLI, which loads the model first, only for
--- a server too old to know the request.
local client_mod = require('cenotaph.client')
local ui = require('cenotaph.ui')

local M = {}

---@class cenotaph.RecallResult (`cenotaph/recall`, the same as `cenotaph recall --json`)
---@field result_type 'memory'|'abandoned_warning'
---@field id integer
---@field content string
---@field project string
---@field kind string
---@field tags string[]
---@field state string
---@field trust string
---@field score number
---@field lane string
---@field is_global boolean
---@field disputed boolean
---@field reinstate_hint_matched boolean
---@field valid_from? string
---@field valid_to? string
---@field history boolean held until valid_to and no longer: history, not advice
---@field recorded_at? string
---@field name? string
---@field reason? string
---@field effort? integer
---@field ecosystem? string
---@field location? { path: string, start_line: integer, end_line: integer } documents and remembered selections: file and lines

--- The longest a picker line's text gets: a memory can be a whole document's chunk, and the
--- picker is one line an item (the chosen one opens in full).
M.SUMMARY_WIDTH = 80

--- The first non-blank line of `text`, cut at SUMMARY_WIDTH characters.
---@param text string
---@return string
local function summary(text)
  local first = vim.trim(text):match('^[^\n]*'):gsub('%s+', ' ')
  if vim.fn.strchars(first) > M.SUMMARY_WIDTH then
    return vim.fn.strcharpart(first, 0, M.SUMMARY_WIDTH - 1) .. '…'
  end
  return first
end

--- One short line of a result, for the picker.
---@param r cenotaph.RecallResult
---@return string
function M.format(r)
  if r.result_type == 'abandoned_warning' then
    return ('ABANDONED %s: %s'):format(r.is_global and 'everywhere' or 'here', summary(r.content))
  end
  local flags = { r.kind, r.trust }
  if r.state ~= 'active' then
    table.insert(flags, r.state)
  end
  if r.disputed then
    table.insert(flags, 'DISPUTED')
  end
  if r.history then
    table.insert(flags, 'history, until ' .. (r.valid_to or '?'):sub(1, 10))
  end
  local where = type(r.location) == 'table' and ('%s:%d '):format(r.location.path, r.location.start_line) or ''
  return ('%s#%d [%s %.3f; %s] %s'):format(where, r.id, r.lane, r.score, table.concat(flags, ', '), summary(r.content))
end

--- The scratch buffer of one result.
---@param r cenotaph.RecallResult
---@return integer bufnr
function M.show(r)
  local lines
  if r.result_type == 'abandoned_warning' then
    lines = {
      ('# approach #%d · %s (%s) · abandoned %s'):format(r.id, r.name or '?', r.ecosystem or '?', r.is_global and 'everywhere' or 'in ' .. r.project),
      '',
      ('effort: %s · recorded %s'):format(r.effort or '?', r.recorded_at or '?'),
      '',
    }
    vim.list_extend(lines, ui.lines(r.reason or r.content))
    return ui.scratch(('cenotaph://approach/%d'):format(r.id), lines)
  end
  lines = {
    ('# memory #%d · %s · %s · %s'):format(r.id, r.kind, r.trust, r.state),
    '',
    ('project: %s · lane: %s · score: %.3f%s'):format(r.project ~= '' and r.project or '(global)', r.lane, r.score, r.disputed and ' · DISPUTED' or ''),
    ('valid from: %s · recorded: %s'):format(r.valid_from or '?', r.recorded_at or '?'),
  }
  if r.history then
    table.insert(lines, ('valid until: %s (history: it holds no longer, not current advice)'):format(r.valid_to or '?'))
  end
  if r.tags and #r.tags > 0 then
    table.insert(lines, 'tags: ' .. table.concat(r.tags, ', '))
  end
  table.insert(lines, '')
  vim.list_extend(lines, ui.lines(r.content))
  return ui.scratch(('cenotaph://memory/%d'):format(r.id), lines)
end

M.REQUEST = 'cenotaph/recall'

--- A server without `cenotaph/recall`: `cenotaph recall --json`, a process that loads the model (seconds).
---@param client vim.lsp.Client
---@param bufnr integer
---@param query string
---@param k integer
---@param on_response fun(response: table)
local function recall_with_cli(client, bufnr, query, k, on_response)
  client_mod.project(client, bufnr, function(project)
    ui.notify(('Cenotaph: recalling "%s"…'):format(query))
    client_mod.cli(client, { 'recall', '-k', tostring(k), '--project', project, '--', query }, function(ok, response)
      if ok then
        on_response(response)
      else
        ui.error('recall failed: ' .. tostring(response))
      end
    end)
  end)
end

--- Recall through the server, then a picker; the chosen memory opens in a scratch buffer.
---@param query string?
---@param opts? { bufnr?: integer, k?: integer, on_done?: fun(response: table) }
function M.recall(query, opts)
  opts = opts or {}
  if not query or vim.trim(query) == '' then
    vim.ui.input({ prompt = 'Recall: ' }, function(answer)
      if answer and vim.trim(answer) ~= '' then
        M.recall(answer, opts)
      end
    end)
    return
  end
  local function pick(response)
    for _, notice in ipairs(response.notices or {}) do
      ui.notify('Cenotaph: ' .. notice)
    end
    local results = response.results or {}
    if #results == 0 then
      ui.notify(('Cenotaph: nothing found for "%s"'):format(query))
    else
      local select_opts = { prompt = 'Cenotaph recall: ' .. query, kind = 'cenotaph.recall', format_item = M.format }
      vim.ui.select(results, select_opts, function(choice)
        local client = choice and choice.kind == 'document' and type(choice.location) == 'table'
          and client_mod.get(ui.buffer(opts.bufnr))
        if client then
          -- A document's chunk: the server opens its file at the lines (window/showDocument). A
          -- memory remembered from a selection opens as itself, verbatim: the file may have changed.
          require('cenotaph.commands').execute(client, 'cenotaph.showLocation', { memoryId = choice.id })
        elseif choice then
          M.show(choice)
        end
      end)
    end
    if opts.on_done then
      opts.on_done(response)
    end
  end
  local k = opts.k or 10
  local bufnr = ui.buffer(opts.bufnr)
  client_mod.with_client(bufnr, function(client)
    local params = vim.tbl_extend('force', { query = query, k = k }, client_mod.scope(client, bufnr))
    client_mod.request(client, M.REQUEST, params, bufnr, pick, function(err)
      if err.code == vim.lsp.protocol.ErrorCodes.MethodNotFound then
        recall_with_cli(client, bufnr, query, k, pick)
      else
        ui.error('recall failed: ' .. (err.message or vim.inspect(err)))
      end
    end)
  end)
end

return M
