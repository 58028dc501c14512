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

--- Make the current window the one to show the document `name` in, never taking a window from
--- the person's file: the window of this tab showing it already, else the current window when
--- it shows another Cenotaph document, else a new split.
---@param name string
function M.window_for(name)
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(win)) == name then
      vim.api.nvim_set_current_win(win)
      return
    end
  end
  if not vim.b.cenotaph_document then
    vim.cmd('belowright split')
  end
end

--- `q` in a document's buffer closes its window (or its tab), back to what was there before.
---@param bufnr integer
function M.closable(bufnr)
  vim.b[bufnr].cenotaph_document = true
  vim.keymap.set('n', 'q', function()
    if #vim.api.nvim_tabpage_list_wins(0) > 1 or #vim.api.nvim_list_tabpages() > 1 then
      vim.cmd.close()
    elseif vim.fn.buflisted(vim.fn.bufnr('#')) == 1 then
      vim.cmd.buffer('#')
    end
  end, { buffer = bufnr, nowait = true, desc = 'Cenotaph: close this window' })
end

--- Open (or reuse) a read-only scratch buffer named `name` showing `lines`, beside the person's
--- file (see window_for); `q` closes it.
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
  M.closable(bufnr)
  M.window_for(name)
  vim.api.nvim_set_current_buf(bufnr)
  return bufnr
end

return M
