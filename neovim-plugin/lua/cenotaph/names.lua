--- Names Cenotaph has flagged in open buffers (for completion and for finding a graveyard).
local M = {}

---@class cenotaph.ApproachData diagnostic `data` (shared_schema/diagnostic-data.schema.json)
---@field type 'approach'
---@field approachId integer
---@field name string
---@field displayName string
---@field project string
---@field scope 'project'|'global'|'other_project'
---@field documentProject string
---@field kind 'import'|'declaration'|'mention'|'recommendation'

--- The `data` of every abandoned-approach diagnostic on an open buffer, current buffer first.
---@return cenotaph.ApproachData[]
function M.flagged()
  local current = vim.api.nvim_get_current_buf()
  local found, seen = {}, {}
  local function add(diagnostics)
    for _, d in ipairs(diagnostics) do
      local lsp = d.user_data and d.user_data.lsp
      local data = lsp and lsp.data
      if d.source == 'cenotaph' and type(data) == 'table' and data.type == 'approach' and not seen[data.approachId] then
        seen[data.approachId] = true
        table.insert(found, data)
      end
    end
  end
  add(vim.diagnostic.get(current))
  add(vim.diagnostic.get(nil))
  return found
end

--- The flagged approach under the cursor, if any.
---@return cenotaph.ApproachData?
function M.at_cursor()
  local row = vim.api.nvim_win_get_cursor(0)[1] - 1
  for _, d in ipairs(vim.diagnostic.get(0, { lnum = row })) do
    local data = d.user_data and d.user_data.lsp and d.user_data.lsp.data
    if d.source == 'cenotaph' and type(data) == 'table' and data.type == 'approach' then
      return data
    end
  end
end

--- Flagged names starting with `prefix` (both the normalized and the display name).
---@param prefix string
---@return string[]
function M.complete(prefix)
  local names = {}
  for _, data in ipairs(M.flagged()) do
    for _, name in ipairs({ data.displayName, data.name }) do
      if vim.startswith(name, prefix) and not vim.tbl_contains(names, name) then
        table.insert(names, name)
      end
    end
  end
  return names
end

return M
