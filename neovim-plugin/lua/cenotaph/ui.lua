--- Messages, scratch buffers and floats.
local M = {}

local TITLE = 'Cenotaph'

--- `bufnr`, with nil and 0 meaning the current buffer.
---@param bufnr? integer
---@return integer
function M.buffer(bufnr)
  return (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr --[[@as integer]]
end

---@param message string
---@param level? integer vim.log.levels
function M.notify(message, level)
  vim.notify(message, level or vim.log.levels.INFO, { title = TITLE })
end

---@param message string
function M.error(message)
  M.notify('Cenotaph: ' .. message, vim.log.levels.ERROR)
end

---@param message string
function M.warn(message)
  M.notify('Cenotaph: ' .. message, vim.log.levels.WARN)
end

---@param text string
---@return string[]
function M.lines(text)
  return vim.split((text:gsub('\r\n?', '\n')), '\n', { plain = true })
end

--- Show Markdown in a float at the cursor.
---@param markdown string
function M.float(markdown)
  local lines = M.lines(markdown)
  while #lines > 0 and lines[#lines] == '' do
    table.remove(lines)
  end
  vim.lsp.util.open_floating_preview(lines, 'markdown', { border = 'rounded', focus_id = 'cenotaph' })
end

--- The buffer named exactly `name`.
---@param name string
---@return integer?
function M.find_buffer(name)
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(bufnr) == name then
      return bufnr
    end
  end
end

--- Open (or reuse) a read-only scratch buffer named `name` showing `lines`.
---@param name string
---@param lines string[]
---@param filetype? string
---@return integer bufnr
function M.scratch(name, lines, filetype)
  local bufnr = M.find_buffer(name)
  if not bufnr then
    bufnr = vim.api.nvim_create_buf(true, true)
    vim.api.nvim_buf_set_name(bufnr, name)
  end
  vim.bo[bufnr].buftype = 'nofile'
  vim.bo[bufnr].bufhidden = 'hide'
  vim.bo[bufnr].swapfile = false
  vim.bo[bufnr].modifiable = true
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].modifiable = false
  vim.bo[bufnr].modified = false
  vim.bo[bufnr].filetype = filetype or 'markdown'
  vim.api.nvim_set_current_buf(bufnr)
  return bufnr
end

return M
