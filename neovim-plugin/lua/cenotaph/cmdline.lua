--- `:Cenotaph {subcommand} …`: parsing and completion.
local ui = require('cenotaph.ui')

local M = {}

---@param opts vim.api.keyset.create_user_command.command_args
---@return string?
local function selection(opts)
  if opts.range == 0 then
    return nil
  end
  local start, finish = vim.fn.getpos("'<"), vim.fn.getpos("'>")
  local mode = vim.fn.visualmode()
  -- The exact visual selection when the range is the one it left; whole lines otherwise.
  if mode ~= '' and start[2] == opts.line1 and finish[2] == opts.line2 then
    return table.concat(vim.fn.getregion(start, finish, { type = mode }), '\n')
  end
  return table.concat(vim.api.nvim_buf_get_lines(0, opts.line1 - 1, opts.line2, false), '\n')
end

--- The memory a command without an id acts on: a recalled memory's buffer, or the ledger entry
--- under the cursor.
---@return integer?
local function memory_here()
  local id = vim.api.nvim_buf_get_name(0):match('^cenotaph://memory/(%d+)$')
    or vim.api.nvim_get_current_line():match('^%- memory #(%d+)')
  return tonumber(id)
end

--- The abandoned approach a command without a name acts on: the flagged name under the cursor,
--- or the ledger's graveyard entry under it.
---@return string?
local function approach_here()
  local flagged = require('cenotaph.names').at_cursor()
  return flagged and flagged.name or vim.api.nvim_get_current_line():match('^%- approach #%d+ · %*%*(.-)%*%*')
end

---@param args string[]
---@return string? name, boolean everywhere
local function name_and_scope(args)
  local everywhere = args[#args] == 'everywhere' and #args > 1
  return args[1], everywhere
end

---@class cenotaph.Subcommand
---@field run fun(args: string[], opts: vim.api.keyset.create_user_command.command_args)
---@field complete? fun(arglead: string, args: string[]): string[]
---@field usage string

local function flagged_names(arglead, args)
  if #args == 0 then
    return require('cenotaph.names').complete(arglead)
  end
  return vim.startswith('everywhere', arglead) and { 'everywhere' } or {}
end

---@type table<string, cenotaph.Subcommand>
M.subcommands = {
  remember = {
    usage = 'remember [kind] [text]  (or on a visual selection; kind: note, decision, …)',
    run = function(args, opts)
      local cenotaph = require('cenotaph')
      local kind
      if vim.tbl_contains(cenotaph.KINDS, args[1]) and (#args > 1 or opts.range > 0) then
        kind = table.remove(args, 1)
      end
      local text = #args > 0 and table.concat(args, ' ') or selection(opts)
      -- A selection keeps the file and lines it came from.
      local lines = (#args == 0 and opts.range > 0) and { start = opts.line1, ['end'] = opts.line2 } or nil
      if text then
        cenotaph.remember(text, { kind = kind, lines = lines })
      else
        vim.ui.input({ prompt = 'Remember: ' }, function(answer)
          if answer and vim.trim(answer) ~= '' then
            cenotaph.remember(answer, { kind = kind })
          end
        end)
      end
    end,
    complete = function(arglead, args)
      if #args > 0 then
        return {}
      end
      return vim.tbl_filter(function(k) return vim.startswith(k, arglead) end, require('cenotaph').KINDS)
    end,
  },
  abandon = {
    usage = 'abandon {name} [everywhere]',
    run = function(args)
      local name, everywhere = name_and_scope(args)
      name = name or vim.fn.expand('<cword>')
      if name == '' then
        ui.warn('usage: :Cenotaph abandon {name} [everywhere]')
        return
      end
      require('cenotaph').abandon(name, { everywhere = everywhere })
    end,
    complete = function(arglead, args)
      if #args == 0 then
        local word = vim.fn.expand('<cword>')
        return (word ~= '' and vim.startswith(word, arglead)) and { word } or {}
      end
      return vim.startswith('everywhere', arglead) and { 'everywhere' } or {}
    end,
  },
  bless = {
    usage = 'bless [memory id]  (else the recalled memory shown, or the ledger entry at the cursor)',
    run = function(args)
      local id = tonumber(args[1]) or (args[1] == nil and memory_here() or nil)
      if not id then
        ui.warn('usage: :Cenotaph bless {memory id}')
        return
      end
      require('cenotaph').bless(id)
    end,
  },
  effort = {
    usage = 'effort [name] [1-5]  (what an abandoned approach cost; the flagged name at the cursor)',
    run = function(args)
      local effort = tonumber(args[#args])
      if effort then
        table.remove(args)
      end
      local name = args[1] or approach_here()
      if not name or (effort and (effort < 1 or effort > 5 or effort % 1 ~= 0)) then
        ui.warn('usage: :Cenotaph effort {name} [1-5]')
        return
      end
      require('cenotaph').effort(name, { effort = effort })
    end,
    complete = function(arglead, args)
      if #args == 0 then
        return require('cenotaph.names').complete(arglead)
      end
      return #args == 1 and vim.tbl_filter(function(e) return vim.startswith(e, arglead) end, { '1', '2', '3', '4', '5' })
        or {}
    end,
  },
  recall = {
    usage = 'recall {query}',
    run = function(args)
      require('cenotaph').recall(table.concat(args, ' '))
    end,
  },
  ledger = {
    usage = 'ledger [project]',
    run = function(args)
      require('cenotaph').ledger({ project = args[1] and table.concat(args, ' ') or nil })
    end,
  },
  suppress = {
    usage = 'suppress {name} [everywhere]',
    run = function(args)
      local name, everywhere = name_and_scope(args)
      name = name or (require('cenotaph.names').at_cursor() or {}).name
      if not name then
        ui.warn('usage: :Cenotaph suppress {name} [everywhere]')
        return
      end
      require('cenotaph').suppress(name, { everywhere = everywhere })
    end,
    complete = flagged_names,
  },
  reinstate = {
    usage = 'reinstate {name}',
    run = function(args)
      local name = args[1] or (require('cenotaph.names').at_cursor() or {}).name
      if not name then
        ui.warn('usage: :Cenotaph reinstate {name}')
        return
      end
      require('cenotaph').reinstate(name)
    end,
    complete = function(arglead, args)
      return #args == 0 and require('cenotaph.names').complete(arglead) or {}
    end,
  },
  proposals = {
    usage = 'proposals',
    run = function()
      require('cenotaph').proposals()
    end,
  },
  mine = {
    usage = 'mine  (git history and agent transcripts, then the ledger at the candidates)',
    run = function()
      require('cenotaph').mine()
    end,
  },
  candidates = {
    usage = 'candidates  (the ledger at the candidates from history)',
    run = function()
      require('cenotaph').candidates()
    end,
  },
  compile = {
    usage = 'compile {skill|agents-md|claude-md|copilot|ruff|eslint|biome}',
    run = function(args)
      local targets = require('cenotaph.compile').TARGETS
      if not vim.tbl_contains(targets, args[1]) then
        ui.warn('usage: :Cenotaph compile {' .. table.concat(targets, '|') .. '}')
        return
      end
      require('cenotaph.compile').propose(args[1])
    end,
    complete = function(arglead, args)
      if #args > 0 then
        return {}
      end
      return vim.tbl_filter(function(t) return vim.startswith(t, arglead) end, require('cenotaph.compile').TARGETS)
    end,
  },
  accept = {
    usage = 'accept [id…] [class=C] [path=GLOB] [commit=SHA] [below=N]  (none: the proposal\'s diff here)',
    run = function(args)
      M.decide(true, args)
    end,
    complete = function(arglead) return M.complete_filters(arglead) end,
  },
  reject = {
    usage = 'reject [id…] [class=C] [path=GLOB] [commit=SHA] [below=N]  (none: the proposal\'s diff here)',
    run = function(args)
      M.decide(false, args)
    end,
    complete = function(arglead) return M.complete_filters(arglead) end,
  },
  reopen = {
    usage = 'reopen batch=N | id…  (undo a rejection)',
    run = function(args)
      require('cenotaph.candidates').reopen(args)
    end,
  },
  endpoint = {
    usage = 'endpoint',
    run = function()
      require('cenotaph').endpoint()
    end,
  },
}

--- `:Cenotaph accept|reject`: no word decides the proposal whose diff is open, one id that
--- proposal; several ids or a filter go through the preview and confirmation of a bulk decision.
---@param accept boolean
---@param args string[]
function M.decide(accept, args)
  if #args == 0 or (#args == 1 and args[1]:match('^%d+$')) then
    require('cenotaph.compile').decide(accept, tonumber(args[1]))
  else
    require('cenotaph.candidates').decide(accept, args)
  end
end

---@param arglead string
---@return string[]
function M.complete_filters(arglead)
  return vim.tbl_filter(function(f) return vim.startswith(f, arglead) end, require('cenotaph.candidates').FILTERS)
end

--- The user command's callback.
---@param opts vim.api.keyset.create_user_command.command_args
function M.run(opts)
  local args = vim.deepcopy(opts.fargs)
  local name = table.remove(args, 1)
  local sub = name and M.subcommands[name]
  if not sub then
    local usages = {}
    for _, key in ipairs(vim.tbl_keys(M.subcommands)) do
      table.insert(usages, '  :Cenotaph ' .. M.subcommands[key].usage)
    end
    table.sort(usages)
    ui.error(('unknown subcommand %s; one of:\n%s'):format(vim.inspect(name or ''), table.concat(usages, '\n')))
    return
  end
  sub.run(args, opts)
end

--- The user command's completion.
---@param arglead string
---@param line string
---@return string[]
function M.complete(arglead, line)
  local words = vim.split(vim.trim(line:gsub('^%S*Cenotaph!?', '', 1)), '%s+', { trimempty = true })
  if arglead ~= '' then
    table.remove(words) -- the word being completed
  end
  if #words == 0 then
    local names = vim.tbl_filter(function(n)
      return vim.startswith(n, arglead)
    end, vim.tbl_keys(M.subcommands))
    table.sort(names)
    return names
  end
  local sub = M.subcommands[words[1]]
  if not (sub and sub.complete) then
    return {}
  end
  -- the arguments before the one being completed
  return sub.complete(arglead, vim.list_slice(words, 2))
end

return M
