--- Code lenses of the Cenotaph client: above lines a memory is anchored to, the memory's name,
--- which shows it (`cenotaph.showAnchor`) when run with |vim.lsp.codelens.run()|. Neovim asks for
--- lenses only when told to: on entering a buffer, on leaving Insert mode (the server has moved
--- the anchors with the edits), when the cursor rests (a verdict comes a second after typing
--- stops) and when a Cenotaph command is done (a memory anchored, re-confirmed or retired).
local M = {}

---@type table<integer, true> buffers the Cenotaph client is attached to
local attached = {}

---@param bufnr integer
function M.refresh(bufnr)
  if vim.api.nvim_buf_is_loaded(bufnr) then
    vim.lsp.codelens.refresh({ bufnr = bufnr })
  end
end

--- Keep the lenses of `bufnr` up to date, from now on (the Cenotaph client attached to it).
---@param bufnr integer
function M.attach(bufnr)
  if attached[bufnr] then
    return
  end
  attached[bufnr] = true
  local group = vim.api.nvim_create_augroup('cenotaph_lenses_' .. bufnr, { clear = true })
  vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'CursorHold' }, {
    group = group,
    buffer = bufnr,
    desc = 'Cenotaph: refresh the code lenses of anchored memories',
    callback = function()
      M.refresh(bufnr)
    end,
  })
  vim.api.nvim_create_autocmd('User', {
    group = group,
    pattern = 'CenotaphCommandDone',
    desc = 'Cenotaph: a command may have anchored, re-confirmed or retired a memory',
    callback = function()
      M.refresh(bufnr)
    end,
  })
  vim.api.nvim_create_autocmd({ 'BufWipeout', 'LspDetach' }, {
    group = group,
    buffer = bufnr,
    callback = function(ev)
      local client = ev.event == 'LspDetach' and vim.lsp.get_client_by_id(ev.data.client_id)
      if client and client.name ~= 'cenotaph' then
        return
      end
      attached[bufnr] = nil
      vim.api.nvim_del_augroup_by_id(group)
    end,
  })
  M.refresh(bufnr)
end

return M
