-- The plugin's own behaviour: lazy loading, the LSP config, setup() validation, the command
-- line, the ledger URIs and :help; and `vim.lsp.enable('cenotaph')` starting the real server
-- without any setup. Run by tests/run.sh: nvim --clean --headless -l tests/test_plugin.lua
package.path = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/?.lua;' .. package.path
local H = require('helpers')
local check, wait, step = H.check, H.wait, H.step

local function loaded_modules()
  return vim.tbl_filter(function(name)
    return name == 'cenotaph' or vim.startswith(name, 'cenotaph.')
  end, vim.tbl_keys(package.loaded))
end

H.load_plugin()

step('plugin/ is lazy', function()
  check(vim.api.nvim_get_commands({}).Cenotaph ~= nil, ':Cenotaph is defined')
  for _, plug in ipairs({ 'remember', 'abandon', 'suppress', 'reinstate', 'recall', 'ledger', 'proposals', 'mine', 'candidates',
    'endpoint' }) do
    check(vim.fn.maparg('<Plug>(cenotaph-' .. plug .. ')', 'n') ~= '', '<Plug>(cenotaph-' .. plug .. ')')
  end
  check(vim.fn.maparg('<Plug>(cenotaph-remember)', 'x') ~= '', '<Plug>(cenotaph-remember) in visual mode')
  local ours = {}
  for _, mode in ipairs({ 'n', 'x', 'i', 'o' }) do
    for _, map in ipairs(vim.api.nvim_get_keymap(mode)) do
      if (map.desc or ''):find('^Cenotaph') and not vim.startswith(map.lhs, '<Plug>') then
        table.insert(ours, map.lhs)
      end
    end
  end
  check(#ours == 0, 'no default keymaps', ours)
  check(#loaded_modules() == 0, 'no cenotaph module is loaded yet', loaded_modules())
  check(#vim.api.nvim_get_autocmds({ event = 'BufReadCmd', pattern = 'cenotaph://ledger/*' }) == 1, 'the ledger BufReadCmd is set')
end)

step('lsp/cenotaph.lua', function()
  local config = vim.lsp.config.cenotaph
  check(config and vim.deep_equal(config.cmd, { 'cenotaph', 'serve' }), 'cmd is cenotaph serve', config and config.cmd)
  for _, ft in ipairs({ 'requirements', 'toml', 'json', 'dockerfile', 'markdown', 'rst', 'text', 'go', 'gomod', 'rust',
    'python', 'javascript', 'typescript', 'typescriptreact', 'dosini' }) do
    check(vim.tbl_contains(config.filetypes, ft), 'filetype ' .. ft)
  end
  local markers = vim.iter(config.root_markers):flatten():totable()
  for _, marker in ipairs({ '.git', '.cenotaph.toml', 'pyproject.toml', 'package.json', 'Cargo.toml', 'go.mod' }) do
    check(vim.tbl_contains(markers, marker), 'root marker ' .. marker)
  end
  check(#loaded_modules() == 0, 'reading the config loads no module', loaded_modules())
  vim.lsp.config('cenotaph', { cmd = { '/opt/cenotaph/bin/cenotaph', 'serve', '--db', '/tmp/x.db' } })
  check(vim.lsp.config.cenotaph.cmd[1] == '/opt/cenotaph/bin/cenotaph', 'cmd can be overridden')
  local argv = require('cenotaph.client').cli_argv(nil, { 'recall', '--json', '--', 'query' })
  check(vim.deep_equal(argv, { '/opt/cenotaph/bin/cenotaph', 'recall', '--db', '/tmp/x.db', '--json', '--', 'query' }),
    'the CLI is run like the server (same program, same --db)', argv)
  vim.lsp.config('cenotaph', { cmd = { 'cenotaph', 'serve' } })
end)

step('vim.lsp.enable works without setup()', function()
  local root = vim.fn.tempname()
  vim.fn.mkdir(root .. '/.git', 'p')
  vim.fn.mkdir(root .. '/pkg/sub', 'p')
  vim.fn.writefile({ 'requests==2.32.0' }, root .. '/pkg/sub/requirements.txt')
  vim.lsp.enable('cenotaph')
  vim.cmd.edit(root .. '/pkg/sub/requirements.txt')
  local client
  check(wait(15000, function()
    client = vim.lsp.get_clients({ name = 'cenotaph', bufnr = 0 })[1]
    return client and client.initialized
  end), 'a cenotaph client starts and initializes')
  check(client and client.root_dir == root, 'rooted at the .git folder', client and client.root_dir)
  local caps = client and client.server_capabilities or {}
  check(caps.hoverProvider and caps.codeActionProvider and caps.executeCommandProvider, 'hover, code actions and commands',
    caps)
  local commands = caps.executeCommandProvider and caps.executeCommandProvider.commands or {}
  for name in pairs(vim.lsp.config.cenotaph.commands) do
    check(vim.tbl_contains(commands, name), 'the server offers ' .. name)
  end
  -- The other way round: a command the client does not handle would reach the server without the
  -- reason the plugin asks for (the server then offers its canned ones instead).
  local schema = vim.json.decode(table.concat(vim.fn.readfile(vim.fs.dirname(H.plugin_root) .. '/shared_schema/commands.schema.json'), '\n'))
  for _, name in ipairs(schema.properties.command.enum) do
    check(vim.lsp.config.cenotaph.commands[name] ~= nil, 'lsp/cenotaph.lua handles ' .. name)
  end
  local stray = vim.fn.tempname() .. '/notes.md'
  vim.fn.mkdir(vim.fs.dirname(stray), 'p')
  vim.cmd.edit(stray)
  vim.wait(300)
  check(#vim.lsp.get_clients({ name = 'cenotaph', bufnr = 0 }) == 0 and #vim.lsp.get_clients({ name = 'cenotaph' }) == 1,
    'a file outside any project starts no server (positive control: the project one runs)')
  vim.cmd('bwipeout!')
  vim.lsp.enable('cenotaph', false)
  vim.lsp.stop_client(vim.lsp.get_clients({ name = 'cenotaph' }), true)
  vim.cmd('bwipeout!')
  wait(3000, function() return #vim.lsp.get_clients({ name = 'cenotaph' }) == 0 end)
end)

step('setup() validates its options with a clear message', function()
  local cenotaph = require('cenotaph')
  local function err(opts)
    local ok, message = pcall(cenotaph.setup, opts)
    return not ok and tostring(message) or nil
  end
  local cases = {
    { { colour = 'red' }, 'cenotaph.setup: opts has no option "colour"' },
    { { cmd = 'cenotaph serve' }, 'cenotaph.setup: opts.cmd must be a table (got string "cenotaph serve")' },
    { { cmd = {} }, 'cenotaph.setup: opts.cmd must be a non-empty list of strings' },
    { { enable = 'yes' }, 'cenotaph.setup: opts.enable must be a boolean' },
    { { settings = { severity = { project = 'loud' } } },
      'cenotaph.setup: opts.settings.severity.project must be one of "error", "warning", "information", "hint", "off" (got "loud")' },
    { { settings = { severity = { globl = 'hint' } } }, 'cenotaph.setup: opts.settings.severity has no option "globl"' },
    { { settings = { fileKinds = { 'python', 'cobol' } } }, 'cenotaph.setup: opts.settings.fileKinds[2] must be one of' },
    { { settings = { fileKinds = { 'python', 'python' } } }, 'cenotaph.setup: opts.settings.fileKinds lists "python" twice' },
    { { settings = { maxFileSize = 10 } }, 'cenotaph.setup: opts.settings.maxFileSize must be a whole number from 1024' },
    { { settings = { otherProjects = 1 } }, 'cenotaph.setup: opts.settings.otherProjects must be a boolean' },
    { { on_endpoint = true }, 'cenotaph.setup: opts.on_endpoint must be a function' },
    { { settings = { feeds = { interval = -1 } } }, 'cenotaph.setup: opts.settings.feeds.interval must be a number from 0 to 8760' },
    { { settings = { mine = { onOpen = 'yes' } } }, 'cenotaph.setup: opts.settings.mine.onOpen must be a boolean' },
    { { settings = { documents = { include = { 1 } } } }, 'cenotaph.setup: opts.settings.documents.include[1] must be a string' },
  }
  for _, case in ipairs(cases) do
    local message = err(case[1])
    check(message and vim.startswith(message, case[2]), 'rejects ' .. vim.inspect(case[1], { newline = ' ', indent = '' }), message)
  end
  -- Every setting of the schema, as :help cenotaph-settings documents it.
  local every = { severity = { project = 'error', global = 'hint', otherProject = 'off', mention = 'hint', instruction = 'warning' },
    otherProjects = true, fileKinds = { 'python', 'markdown' }, maxFileSize = 4096, documents = { include = { 'docs/**/*.md' } },
    feeds = { interval = 0.5 }, mine = { onOpen = true } }
  local message = err({ enable = false, settings = every })
  check(message == nil, 'accepts every documented setting, mine.onOpen included', message)
end)

step(':help cenotaph works from a plain runtimepath install (doc/tags is shipped and current)', function()
  local ok, message = pcall(vim.cmd.help, 'cenotaph-settings')
  check(ok and vim.bo.filetype == 'help' and vim.api.nvim_get_current_line():find('*cenotaph-settings*', 1, true),
    ':help cenotaph-settings opens at its tag', message)
  vim.cmd('helpclose')
  local copy = vim.fn.tempname()
  vim.fn.mkdir(copy, 'p')
  vim.fn.writefile(vim.fn.readfile(H.plugin_root .. '/doc/cenotaph.txt'), copy .. '/cenotaph.txt')
  vim.cmd.helptags(vim.fn.fnameescape(copy))
  check(vim.deep_equal(vim.fn.readfile(copy .. '/tags'), vim.fn.readfile(H.plugin_root .. '/doc/tags')),
    'doc/tags is what :helptags makes of doc/cenotaph.txt (regenerate: nvim --clean --headless -c "helptags doc" -c q)')
end)

step('setup() is idempotent', function()
  local cenotaph = require('cenotaph')
  local opts = { enable = false, ask_reason = false, settings = { otherProjects = true, severity = { global = 'warning' } } }
  cenotaph.setup(opts)
  local first = vim.deepcopy(vim.lsp.config.cenotaph)
  cenotaph.setup(opts)
  local second = vim.lsp.config.cenotaph
  check(vim.deep_equal(first.settings, second.settings) and vim.deep_equal(first.init_options, second.init_options),
    'the same config twice', { first.settings, second.settings })
  check(second.settings.cenotaph.otherProjects == true and second.init_options.severity.global == 'warning',
    'settings reach settings.cenotaph and initializationOptions', second.settings)
  check(require('cenotaph.config').options.ask_reason == false, 'options are in effect')
  check(not vim.lsp.is_enabled('cenotaph'), 'enable = false leaves the server off')
  check(#vim.api.nvim_get_autocmds({ event = 'BufReadCmd', pattern = 'cenotaph://ledger/*' }) == 1, 'no duplicate autocmds')
  cenotaph.setup({ enable = false })
  check(require('cenotaph.config').options.ask_reason == true, 'a new call starts from the defaults')
end)

step('the kinds of memory are the schema\'s', function()
  local schema = vim.json.decode(table.concat(vim.fn.readfile(vim.fs.dirname(H.plugin_root) .. '/shared_schema/commands.schema.json'), '\n'))
  local kinds = schema['$defs'].remember.properties.kind.enum
  check(#kinds > 0 and vim.deep_equal(require('cenotaph').KINDS, kinds), 'cenotaph.KINDS = remember.kind in commands.schema.json',
    { require('cenotaph').KINDS, kinds })
  check(vim.deep_equal(vim.fn.getcompletion('Cenotaph remember de', 'cmdline'), { 'decision' }), 'remember completes the kinds')
end)

step("the README's suggested settings run, and every mapping they name exists", function()
  local readme = table.concat(vim.fn.readfile(H.plugin_root .. '/README.md'), '\n')
  local block = readme:match('## Suggested settings.-```lua\n(.-)```')
  check(block and block:find('virtual_text', 1, true), 'a Lua block with virtual_text', block)
  local ok, err = pcall(assert(load(block or '')))
  check(ok, 'it runs', err)
  for plug in (block or ''):gmatch('<Plug>%(cenotaph%-[%w-]+%)') do
    local mode = block:match("vim%.keymap%.set%('(%a)', '[^']+', '" .. vim.pesc(plug))
    check(vim.fn.maparg(plug, mode) ~= '', plug .. ' exists in mode ' .. tostring(mode))
  end
end)

step(':Cenotaph completion', function()
  local subs = vim.fn.getcompletion('Cenotaph ', 'cmdline')
  check(vim.deep_equal(subs, { 'abandon', 'accept', 'bless', 'candidates', 'compile', 'effort', 'endpoint', 'ledger', 'mine', 'proposals', 'recall',
    'reinstate', 'reject', 'remember', 'reopen', 'suppress' }), 'every subcommand', subs)
  local targets = vim.fn.getcompletion('Cenotaph compile c', 'cmdline')
  check(vim.deep_equal(targets, { 'claude-md', 'copilot' }), 'compile completes its targets', targets)
  check(vim.deep_equal(vim.fn.getcompletion('Cenotaph le', 'cmdline'), { 'ledger' }), 'by prefix')
  -- A flagged name on a buffer, as the client stores a published diagnostic.
  local ns = vim.api.nvim_create_namespace('cenotaph-test')
  vim.diagnostic.set(ns, 0, { {
    lnum = 0, col = 0, message = 'x', source = 'cenotaph',
    user_data = { lsp = { data = { type = 'approach', approachId = 7, name = 'onnxruntime', displayName = 'onnxruntime',
      project = 'acme/app', scope = 'project', documentProject = 'acme/app', kind = 'declaration' } } },
  } })
  check(vim.deep_equal(vim.fn.getcompletion('Cenotaph reinstate onnx', 'cmdline'), { 'onnxruntime' }), 'flagged names for reinstate')
  check(vim.deep_equal(vim.fn.getcompletion('Cenotaph suppress ', 'cmdline'), { 'onnxruntime' }), 'flagged names for suppress')
  check(vim.deep_equal(vim.fn.getcompletion('Cenotaph suppress onnxruntime ', 'cmdline'), { 'everywhere' }), 'then the scope')
  vim.diagnostic.reset(ns)
  local messages = {}
  local notify = vim.notify
  vim.notify = function(msg) table.insert(messages, msg) end
  vim.cmd('Cenotaph frobnicate')
  vim.notify = notify
  check(messages[1] and messages[1]:find('unknown subcommand "frobnicate"', 1, true) and messages[1]:find(':Cenotaph ledger [project]', 1, true),
    'an unknown subcommand lists the usage', messages)
end)

step('ledger URIs', function()
  local ledger = require('cenotaph.ledger')
  for _, case in ipairs({
    { 'cenotaph:ledger/acme/app.md', 'cenotaph://ledger/acme/app.md' },
    { 'cenotaph:ledger//home/me/src/x.md', 'cenotaph://ledger//home/me/src/x.md' },
    { 'cenotaph:ledger/caf%C3%A9%20app.md', 'cenotaph://ledger/caf%C3%A9%20app.md' },
  }) do
    check(ledger.to_buffer(case[1]) == case[2] and ledger.to_server(case[2]) == case[1], 'round trip ' .. case[1])
    local bufnr = vim.fn.bufadd(case[2])
    check(vim.uri_from_bufnr(bufnr) == case[2], 'Neovim keeps the buffer name as the URI ' .. case[2], vim.uri_from_bufnr(bufnr))
    vim.api.nvim_buf_delete(bufnr, { force = true })
  end
  check(ledger.to_server('file:///x/cenotaph://ledger/a.md') == 'file:///x/cenotaph://ledger/a.md', 'other URIs are left alone')
end)

step(':help cenotaph', function()
  local docs = vim.fn.tempname()
  vim.fn.mkdir(docs .. '/doc', 'p')
  vim.fn.writefile(vim.fn.readfile(H.plugin_root .. '/doc/cenotaph.txt'), docs .. '/doc/cenotaph.txt')
  local ok, err = pcall(vim.cmd.helptags, docs .. '/doc')
  check(ok, 'helptags accepts doc/cenotaph.txt (no duplicate tags)', err)
  vim.opt.runtimepath:append(docs)
  for _, tag in ipairs({ 'cenotaph', ':Cenotaph', 'cenotaph.setup()', 'cenotaph-ledger', '<Plug>(cenotaph-ledger)', 'cenotaph-health' }) do
    local found = pcall(vim.cmd.help, tag)
    check(found and vim.api.nvim_buf_get_name(0):match('cenotaph%.txt$'), ':help ' .. tag)
    pcall(vim.cmd.helpclose)
  end
end)

H.finish()
