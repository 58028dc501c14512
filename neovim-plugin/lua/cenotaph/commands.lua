--- The server's commands (shared_schema/commands.schema.json) run from Neovim: a missing reason
--- is asked for with `vim.ui.input`, then `workspace/executeCommand` is sent and its result shown.
local config = require('cenotaph.config')
local ui = require('cenotaph.ui')

local M = {}

--- The result every command returns.
---@class cenotaph.CommandResult
---@field done boolean False when cancelled.
---@field message string
---@field id? integer The record made or changed.
---@field markdown? string
---@field ids? integer[] The proposals a bulk decision touched (in a preview: would touch).

---@alias cenotaph.Prompt fun(arg: table, title?: string): string?

--- The commands that take a `reason`, and how to ask for it.
---@type table<string, cenotaph.Prompt>
M.REASON_PROMPTS = {
  ['cenotaph.silence'] = function(a)
    return ("Why silence '%s' %s? "):format(a.name, a.scope == 'everywhere' and 'everywhere' or 'in this project')
  end,
  ['cenotaph.reinstate'] = function(a)
    return ("Why reinstate '%s'? "):format(a.name)
  end,
  ['cenotaph.liftSilence'] = function(a)
    local what = a.kind == 'recall' and "Why let '%s' back into recall %s? " or "Why flag '%s' again %s? "
    return what:format(a.name, a.project == '' and 'everywhere' or 'here')
  end,
  ['cenotaph.markWrong'] = function(_, title)
    return ('%s: what is wrong with it? '):format(title or 'Mark this record wrong')
  end,
  ['cenotaph.abandon'] = function(a)
    return ("Why was '%s' abandoned? "):format(a.name)
  end,
  ['cenotaph.resolveContradiction'] = function(a, title)
    return ('%s: why? '):format(title or ('Resolve contradiction #%d (keep %s)'):format(a.contradictionId, a.keep))
  end,
  ['cenotaph.dismissContradiction'] = function(a)
    return ('Why is #%d not a contradiction? '):format(a.contradictionId)
  end,
  ['cenotaph.setTrust'] = function(a)
    return ('Why is memory #%d %s? '):format(a.memoryId, a.trust)
  end,
  ['cenotaph.archive'] = function(a)
    return ('Why archive memory #%d? '):format(a.memoryId)
  end,
  ['cenotaph.reinstateMemory'] = function(a)
    return ('Why bring memory #%d back? '):format(a.memoryId)
  end,
  ['cenotaph.retireAnchored'] = function(a)
    return ('Why does memory #%d no longer hold? '):format(a.memoryId)
  end,
  ['cenotaph.rejectProposal'] = function(a)
    return ('Why reject proposal #%d? '):format(a.proposalId)
  end,
  ['cenotaph.acceptCandidate'] = function(a)
    return ('Why was candidate #%d abandoned? '):format(a.proposalId)
  end,
  -- An acceptance keeps each candidate's drafted reason: only a rejection asks.
  ['cenotaph.decideCandidates'] = function(a)
    return a.decision == 'reject' and not a.preview and ('Why reject these %d candidates? '):format(#(a.proposalIds or {}))
      or nil
  end,
}

--- The text a reason prompt starts from: a candidate's drafted reason, to edit.
---@type table<string, fun(arg: table): string?>
M.REASON_DEFAULTS = {
  ['cenotaph.acceptCandidate'] = function(a)
    return type(a.draft) == 'string' and a.draft or nil
  end,
}

--- The commands that take an `effort` (1–5, what the dead end cost; effort 4–5 also keeps it out
--- of recall and makes it a lesson the compiler reinforces), and how to ask for it.
---@type table<string, fun(arg: table): string>
M.EFFORT_PROMPTS = {
  ['cenotaph.abandon'] = function(a)
    return ("What did '%s' cost before it was abandoned?"):format(a.name)
  end,
  ['cenotaph.acceptCandidate'] = function(a)
    return ('What did candidate #%d cost before it was abandoned?'):format(a.proposalId)
  end,
  ['cenotaph.setEffort'] = function(a)
    return ("What did '%s' cost before it was abandoned?"):format(a.name)
  end,
}

--- The commands whose effort is the point: cancelling its picker cancels the command.
---@type table<string, true>
M.EFFORT_REQUIRED = { ['cenotaph.setEffort'] = true }

M.EFFORTS = {
  { effort = 1, title = '1 · a quick try' },
  { effort = 2, title = '2 · an afternoon' },
  { effort = 3, title = '3 · days' },
  { effort = 4, title = '4 · a week or more' },
  { effort = 5, title = '5 · a major investment' },
}

---@param name string
---@param argument table
---@param result cenotaph.CommandResult?
---@param err lsp.ResponseError?
local function announce(name, argument, result, err)
  vim.api.nvim_exec_autocmds('User', {
    pattern = 'CenotaphCommandDone',
    modeline = false,
    data = { command = name, argument = argument, result = result, error = err },
  })
end

--- "Show why" requests on the way, by client id: their summary, which the server also sends as
--- window/showMessage, is in the float that opens, so it is not echoed too.
---@type table<integer, integer>
local showing_why = {}

--- window/showMessage, as a notification: the built-in handler echoes it with a final newline,
--- a second line that stops Neovim at a hit-enter prompt.
---@param result lsp.ShowMessageParams
---@param ctx { client_id: integer }
function M.on_show_message(_, result, ctx)
  if (showing_why[ctx.client_id] or 0) > 0 then
    return vim.NIL
  end
  local levels = { vim.log.levels.ERROR, vim.log.levels.WARN, vim.log.levels.INFO, vim.log.levels.DEBUG }
  ui.notify(result.message, levels[result.type] or vim.log.levels.INFO)
  return vim.NIL
end

--- Send `workspace/executeCommand` and show what came back.
---@param client vim.lsp.Client
---@param name string e.g. "cenotaph.reinstate"
---@param argument table the command's one argument object
---@param bufnr? integer
---@param on_done? fun(result: cenotaph.CommandResult?, err: lsp.ResponseError?)
---@param on_error? fun(err: lsp.ResponseError, argument: table): boolean true when it handled the error
function M.execute(client, name, argument, bufnr, on_done, on_error)
  local why = name == 'cenotaph.showWhy'
  if why then
    showing_why[client.id] = (showing_why[client.id] or 0) + 1
  end
  client:request('workspace/executeCommand', { command = name, arguments = { argument } }, function(err, result)
    if why then
      showing_why[client.id] = showing_why[client.id] - 1
    end
    if err and on_error and on_error(err, argument) then
      return
    elseif err then
      ui.error(('%s: %s'):format(name, err.message or vim.inspect(err)))
    elseif result then
      if result.markdown and result.markdown ~= vim.NIL then
        ui.float(result.markdown)
      end
      -- showWhy's summary is the float's.
      if not why then
        ui.notify(result.message, result.done and vim.log.levels.INFO or vim.log.levels.WARN)
      end
    end
    announce(name, argument, result, err)
    if on_done then
      on_done(result, err)
    end
  end, bufnr)
end

--- Run a command: ask for its reason first when it needs one and has none, then for its effort
--- when it takes one (cancelling that picker leaves the effort out).
---@param client vim.lsp.Client
---@param name string
---@param argument table
---@param opts? { bufnr?: integer, title?: string, on_done?: fun(result: cenotaph.CommandResult?, err: lsp.ResponseError?), on_error?: fun(err: lsp.ResponseError, argument: table): boolean }
function M.invoke(client, name, argument, opts)
  opts = opts or {}
  argument = vim.deepcopy(argument)
  local function cancel(why)
    ui.notify('Cenotaph: cancelled (' .. why .. ')', vim.log.levels.WARN)
    local cancelled = { done = false, message = 'cancelled' }
    announce(name, argument, cancelled, nil)
    if opts.on_done then
      opts.on_done(cancelled, nil)
    end
  end
  local function run()
    local ask_effort = M.EFFORT_PROMPTS[name]
    if not (ask_effort and argument.effort == nil and config.options.ask_reason) then
      M.execute(client, name, argument, opts.bufnr, opts.on_done, opts.on_error)
      return
    end
    vim.ui.select(M.EFFORTS, { prompt = ask_effort(argument), kind = 'cenotaph.effort',
      format_item = function(item) return item.title end }, function(choice)
      if not choice and M.EFFORT_REQUIRED[name] then
        cancel('no effort given')
        return
      end
      argument.effort = choice and choice.effort or nil
      M.execute(client, name, argument, opts.bufnr, opts.on_done, opts.on_error)
    end)
  end
  local prompt = M.REASON_PROMPTS[name]
  local question = prompt and argument.reason == nil and config.options.ask_reason and prompt(argument, opts.title)
  if not question then
    run()
    return
  end
  local default = M.REASON_DEFAULTS[name] and M.REASON_DEFAULTS[name](argument)
  vim.ui.input({ prompt = question, default = default }, function(reason)
    reason = reason and vim.trim(reason) or ''
    if reason == '' then
      cancel('no reason given')
      return
    end
    argument.reason = reason
    run()
  end)
end

--- The client-side handler of a server command (lsp/cenotaph.lua `commands`), which is what
--- `vim.lsp.buf.code_action()` calls for Cenotaph's actions.
---@param name string
---@param command lsp.Command
---@param ctx { client_id: integer, bufnr: integer }
function M.run(name, command, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not client then
    ui.error('the language server is gone')
    return
  end
  local argument = command.arguments and command.arguments[1]
  if type(argument) ~= 'table' then
    ui.error(('%s: expected one object argument'):format(name))
    return
  end
  M.invoke(client, name, argument, { bufnr = ctx.bufnr, title = command.title })
end

return M
