-- The Cenotaph language server (`cenotaph serve`) for Neovim's built-in client.
-- `vim.lsp.enable('cenotaph')` is enough; override any field with `vim.lsp.config('cenotaph', {...})`.
-- Every function here requires the plugin's modules only when it runs.

-- The nearest repository (as the server resolves projects), else the nearest manifest.
local ROOT_MARKERS = {
  { '.git', '.cenotaph.toml' },
  { 'pyproject.toml', 'package.json', 'Cargo.toml', 'go.mod' },
}

--- A ledger URI from the server, as the name of its buffer (see cenotaph.ledger).
---@param result { uri: string }?
local function to_buffer(result)
  if result and type(result.uri) == 'string' and vim.startswith(result.uri, 'cenotaph:') then
    result.uri = require('cenotaph.ledger').to_buffer(result.uri)
  end
end

---@param name string
local function command(name)
  return function(cmd, ctx)
    require('cenotaph.commands').run(name, cmd, ctx)
  end
end

---@type vim.lsp.Config
return {
  cmd = { 'cenotaph', 'serve' },
  filetypes = {
    'python',
    'javascript',
    'javascriptreact',
    'typescript',
    'typescriptreact',
    'go',
    'gomod',
    'rust',
    'requirements',
    'toml',
    'json',
    'jsonc',
    'dockerfile',
    'dosini', -- setup.cfg
    'markdown',
    'rst',
    'text', -- requirements-dev.txt and the like are `text` to Neovim, and so are .txt docs
  },
  root_markers = ROOT_MARKERS,
  -- Only inside a project: outside every workspace folder the server has nothing to flag.
  root_dir = function(bufnr, on_dir)
    local root = vim.fs.root(bufnr, ROOT_MARKERS)
    if root then
      on_dir(root)
    end
  end,
  handlers = {
    ['textDocument/publishDiagnostics'] = function(err, result, ctx)
      to_buffer(result)
      return vim.lsp.handlers['textDocument/publishDiagnostics'](err, result, ctx)
    end,
    ['window/showDocument'] = function(err, result, ctx)
      to_buffer(result)
      return vim.lsp.handlers['window/showDocument'](err, result, ctx)
    end,
    ['window/showMessage'] = function(err, result, ctx)
      return require('cenotaph.commands').on_show_message(err, result, ctx)
    end,
    ['window/showMessageRequest'] = function(err, result, ctx)
      return require('cenotaph.candidates').on_message_request(err, result, ctx)
    end,
    ['cenotaph/ledgerDidChange'] = function(_, result, ctx)
      require('cenotaph.ledger').on_did_change(result, ctx)
    end,
    ['cenotaph/mcpEndpoint'] = function(_, result, ctx)
      require('cenotaph.endpoint').on_report(result, ctx)
    end,
  },
  commands = {
    ['cenotaph.silence'] = command('cenotaph.silence'),
    ['cenotaph.reinstate'] = command('cenotaph.reinstate'),
    ['cenotaph.liftSilence'] = command('cenotaph.liftSilence'),
    ['cenotaph.showWhy'] = command('cenotaph.showWhy'),
    ['cenotaph.markWrong'] = command('cenotaph.markWrong'),
    ['cenotaph.remember'] = command('cenotaph.remember'),
    ['cenotaph.abandon'] = command('cenotaph.abandon'),
    ['cenotaph.resolveContradiction'] = command('cenotaph.resolveContradiction'),
    ['cenotaph.dismissContradiction'] = command('cenotaph.dismissContradiction'),
    ['cenotaph.setTrust'] = command('cenotaph.setTrust'),
    ['cenotaph.archive'] = command('cenotaph.archive'),
    ['cenotaph.reinstateMemory'] = command('cenotaph.reinstateMemory'),
    ['cenotaph.acceptProposal'] = command('cenotaph.acceptProposal'),
    ['cenotaph.rejectProposal'] = command('cenotaph.rejectProposal'),
    ['cenotaph.acceptCandidate'] = command('cenotaph.acceptCandidate'),
    ['cenotaph.mine'] = command('cenotaph.mine'),
    ['cenotaph.decideCandidates'] = command('cenotaph.decideCandidates'),
    ['cenotaph.reopenCandidates'] = command('cenotaph.reopenCandidates'),
    ['cenotaph.showLocation'] = command('cenotaph.showLocation'),
    ['cenotaph.share'] = command('cenotaph.share'),
    ['cenotaph.unshare'] = command('cenotaph.unshare'),
    ['cenotaph.bless'] = command('cenotaph.bless'),
    ['cenotaph.setEffort'] = command('cenotaph.setEffort'),
    ['cenotaph.reconfirmAnchor'] = command('cenotaph.reconfirmAnchor'),
    ['cenotaph.retireAnchored'] = command('cenotaph.retireAnchored'),
    ['cenotaph.showAnchor'] = command('cenotaph.showAnchor'),
  },
}
