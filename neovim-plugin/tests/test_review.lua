-- A reviewer's verbs from Neovim (issue 31): remember a selection with its file and lines, bless
-- the memory, give an abandoned approach the effort it cost. Run by tests/run.sh against the real
-- `cenotaph serve` on a private store.
package.path = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/?.lua;' .. package.path
local H = require('helpers')
local check, wait, step = H.check, H.wait, H.step

assert(vim.env.CENOTAPH_HOME and vim.env.XDG_STATE_HOME, 'run me through tests/run.sh (private store)')
H.load_plugin()

local pick ---@type (fun(titles: string[]): integer?)?
local offered ---@type string[]
vim.ui.select = function(items, opts, on_choice)
  offered = vim.tbl_map(function(item)
    return opts.format_item and opts.format_item(item) or (type(item) == 'table' and item.title) or tostring(item)
  end, items)
  local chosen = pick and pick(offered) or nil
  on_choice(chosen and items[chosen] or nil, chosen)
end
local prompts = {}
vim.ui.input = function(opts, on_confirm)
  table.insert(prompts, opts.prompt)
  on_confirm(nil)
end
local done = {} ---@type table[]
vim.api.nvim_create_autocmd('User', {
  pattern = 'CenotaphCommandDone',
  callback = function(ev)
    table.insert(done, ev.data)
  end,
})
local messages = {}
vim.notify = function(msg, level)
  table.insert(messages, { msg = msg, level = level })
end

---@param command string
---@return table?
local function finished(command)
  for _, data in ipairs(done) do
    if data.command == command then
      return data
    end
  end
end

local root = vim.fn.tempname()
local proj = root .. '/app'
vim.fn.mkdir(proj .. '/src', 'p')
vim.fn.writefile({ 'project = "acme/review"' }, proj .. '/.cenotaph.toml')
vim.fn.writefile({ 'import os', '# retries: three, then give up', 'RETRIES = 3', 'from celery import Celery', '' },
  proj .. '/src/jobs.py')

step('prepare the store with the CLI', function()
  local out = H.cli({ 'abandon', 'celery', '--reason', 'workers leaked memory under load' }, proj)
  check(out.code == 0, 'abandon celery (no effort yet)', out.stderr)
end)

require('cenotaph').setup()

local buf
step(':2,3Cenotaph remember decision keeps the file and lines', function()
  vim.cmd.edit(proj .. '/src/jobs.py')
  buf = vim.api.nvim_get_current_buf()
  check(wait(60000, function() return H.flag(buf, 'celery') end), 'celery is flagged (the server is up)')
  vim.cmd('2,3Cenotaph remember decision')
  check(wait(30000, function() return finished('cenotaph.remember') end), 'remember ran', messages)
  local ran = finished('cenotaph.remember') or { argument = {} }
  check(vim.deep_equal(ran.argument.lines, { start = 2, ['end'] = 3 }) and ran.argument.kind == 'decision',
    'the selection\'s lines and kind were sent', ran.argument)
  check(ran.argument.text == '# retries: three, then give up\nRETRIES = 3', 'the lines verbatim', ran.argument.text)
  -- In the project's repository the memory is anchored to them (issue 41): they follow edits.
  check(ran.result and ran.result.done and ran.result.message:find('(src/jobs.py:2-3, anchored)', 1, true),
    'the server kept them, anchored: src/jobs.py:2-3', ran.result)
end)

step('a code lens names the anchored memory above its lines and shows it', function()
  local id = ((finished('cenotaph.remember') or {}).result or {}).id
  local function lenses()
    return vim.tbl_filter(function(lens)
      return lens.command and lens.command.command == 'cenotaph.showAnchor'
    end, vim.lsp.codelens.get(buf))
  end
  check(wait(15000, function() return #lenses() > 0 end), 'a lens came (refreshed when the command was done)')
  local found = lenses()
  check(#found == 1 and found[1].range.start.line == 1, 'one, above line 2 (the control: none elsewhere)', found)
  check(found[1] and found[1].command.title == ('memory #%d: # retries: three, then give up'):format(id)
    and vim.deep_equal(found[1].command.arguments, { { memoryId = id } }), 'naming the memory', found[1])
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  vim.lsp.codelens.run()
  check(wait(15000, function() return finished('cenotaph.showAnchor') end), 'running it shows the memory')
  local shown = (finished('cenotaph.showAnchor') or {}).result or {}
  check(shown.done and shown.markdown and shown.markdown:find('RETRIES = 3', 1, true), 'with its lines', shown)
end)

step(':Cenotaph bless {id} vouches for the memory', function()
  local id = ((finished('cenotaph.remember') or {}).result or {}).id
  done, prompts = {}, {}
  vim.cmd('Cenotaph bless ' .. tostring(id))
  check(wait(15000, function() return finished('cenotaph.bless') end), 'bless ran')
  local ran = finished('cenotaph.bless') or {}
  check(ran.result and ran.result.done and ran.result.id == id and ran.result.message:find('blessed', 1, true),
    'the server blessed it', ran)
  check(#prompts == 0, 'no reason was asked (it is optional)', prompts)
  -- From the recalled memory's buffer, without an id.
  require('cenotaph.recall').show({ result_type = 'memory', id = id, content = 'x', project = 'acme/review', kind = 'decision',
    tags = {}, state = 'active', trust = 'confirmed', score = 1, lane = 'semantic', is_global = false, disputed = false,
    reinstate_hint_matched = false })
  done = {}
  vim.cmd('Cenotaph bless')
  check(wait(15000, function() return finished('cenotaph.bless') end), 'bless ran from the memory buffer')
  check(((finished('cenotaph.bless') or {}).argument or {}).memoryId == id, 'on that memory', finished('cenotaph.bless'))
  vim.cmd.buffer(buf)
end)

step(':Cenotaph effort on the flagged name picks the effort', function()
  vim.api.nvim_win_set_cursor(0, { 4, 6 })
  done = {}
  pick = function(titles)
    for i, title in ipairs(titles) do
      if title:find('^4 ') then
        return i
      end
    end
  end
  vim.cmd('Cenotaph effort')
  check(wait(15000, function() return finished('cenotaph.setEffort') end), 'setEffort ran', messages)
  local ran = finished('cenotaph.setEffort') or { argument = {} }
  check(ran.argument.name == 'celery' and ran.argument.effort == 4 and ran.argument.project == 'acme/review',
    'celery, 4, in its project', ran.argument)
  check(offered and #offered == 5 and offered[1]:find('^1 '), 'five efforts were offered', offered)
  check(ran.result and ran.result.done and ran.result.message:find('4/5', 1, true)
    and ran.result.message:find('out of recall', 1, true), 'the server recorded it, and recall leaves it', ran.result)
end)

step(':Cenotaph effort with the picker cancelled sends nothing', function()
  done, pick = {}, nil
  vim.cmd('Cenotaph effort celery')
  check(wait(5000, function() return finished('cenotaph.setEffort') end), 'the command ended')
  local ran = finished('cenotaph.setEffort') or {}
  check(ran.result and ran.result.done == false and ran.result.message == 'cancelled' and ran.argument.effort == nil,
    'cancelled in the client', ran)
  done = {}
  vim.cmd('Cenotaph effort celery 2')
  check(wait(15000, function() return finished('cenotaph.setEffort') end), 'an effort given on the command line')
  local given = finished('cenotaph.setEffort') or {}
  check(given.result and given.result.done and given.result.message:find('2/5', 1, true), 'is sent as is', given)
end)

vim.lsp.stop_client(vim.lsp.get_clients({ name = 'cenotaph' }), true)
H.finish()
