-- Cenotaph: the `:Cenotaph` command, `<Plug>` mappings and the ledger's BufReadCmd. Nothing is
-- required until one of them is used; the language server itself is lsp/cenotaph.lua.
if vim.g.loaded_cenotaph then
  return
end
vim.g.loaded_cenotaph = 1

vim.api.nvim_create_user_command('Cenotaph', function(opts)
  require('cenotaph.cmdline').run(opts)
end, {
  nargs = '+',
  range = true,
  desc = 'Cenotaph: remember, abandon, bless, effort, recall, ledger, suppress, reinstate, proposals, mine, candidates, compile, accept, reject, endpoint',
  complete = function(arglead, line)
    return require('cenotaph.cmdline').complete(arglead, line)
  end,
})

local group = vim.api.nvim_create_augroup('cenotaph', { clear = true })
vim.api.nvim_create_autocmd('BufReadCmd', {
  group = group,
  pattern = 'cenotaph://ledger/*',
  desc = 'Cenotaph ledger',
  callback = function(ev)
    require('cenotaph.ledger').read(ev.buf, ev.match)
  end,
})

-- Code lenses above anchored memories (lua/cenotaph/lenses.lua): Neovim shows the server's
-- lenses only when asked for them.
vim.api.nvim_create_autocmd('LspAttach', {
  group = group,
  desc = 'Cenotaph: code lenses of anchored memories',
  callback = function(ev)
    local client = vim.lsp.get_client_by_id(ev.data.client_id)
    if client and client.name == 'cenotaph' then
      require('cenotaph.lenses').attach(ev.buf)
    end
  end,
})

-- The client's own command behind the "Propose an update" code action (not the server's, so not
-- in lsp/cenotaph.lua's `commands`): it sends cenotaph/compile and opens the diff.
vim.lsp.commands['cenotaph.proposeUpdate'] = function(command, ctx)
  require('cenotaph.compile').on_command(command, ctx)
end

-- Agent instruction files (AGENTS.md, CLAUDE.md … are Markdown already).
vim.filetype.add({ filename = { ['.cursorrules'] = 'markdown' } })

---@param lhs string
---@param modes string|string[]
---@param rhs function
---@param desc string
local function plug(lhs, modes, rhs, desc)
  vim.keymap.set(modes, '<Plug>(' .. lhs .. ')', rhs, { desc = desc, silent = true })
end

plug('cenotaph-remember', 'n', function()
  local line = vim.fn.line('.')
  require('cenotaph').remember(vim.api.nvim_get_current_line(), { lines = { start = line, ['end'] = line } })
end, 'Cenotaph: remember the current line')
plug('cenotaph-remember', 'x', ':Cenotaph remember<CR>', 'Cenotaph: remember the selection')
plug('cenotaph-remember-as', 'x', function()
  vim.cmd('normal! \27') -- leave Visual mode: '< and '> now mark the selection
  vim.ui.select(require('cenotaph').KINDS, { prompt = 'Remember the selection as', kind = 'cenotaph.kind' }, function(kind)
    if kind then
      vim.cmd(("'<,'>Cenotaph remember %s"):format(kind))
    end
  end)
end, 'Cenotaph: remember the selection as a note, decision, preference, fact or experience')
plug('cenotaph-abandon', 'n', function()
  require('cenotaph').abandon(vim.fn.expand('<cword>'))
end, 'Cenotaph: record the word under the cursor as abandoned')
plug('cenotaph-suppress', 'n', function()
  vim.cmd('Cenotaph suppress')
end, 'Cenotaph: silence the flagged name under the cursor')
plug('cenotaph-reinstate', 'n', function()
  vim.cmd('Cenotaph reinstate')
end, 'Cenotaph: reinstate the flagged name under the cursor')
plug('cenotaph-recall', 'n', function()
  require('cenotaph').recall('')
end, 'Cenotaph: recall')
plug('cenotaph-ledger', 'n', function()
  require('cenotaph').ledger()
end, 'Cenotaph: open the ledger')
plug('cenotaph-proposals', 'n', function()
  require('cenotaph').proposals()
end, 'Cenotaph: review pending proposals')
plug('cenotaph-mine', 'n', function()
  require('cenotaph').mine()
end, 'Cenotaph: mine git history and agent transcripts for candidates')
plug('cenotaph-candidates', 'n', function()
  require('cenotaph').candidates()
end, 'Cenotaph: review the candidates from history in the ledger')
plug('cenotaph-endpoint', 'n', function()
  require('cenotaph').endpoint()
end, 'Cenotaph: show the MCP endpoint')
