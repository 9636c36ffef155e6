-- One Tandem session in this Neovim: the sidecar's life (start, running, stop, failure), and
-- what connects it to the editor: the context, the diff views, reloads after accepts and the
-- environment of terminals. Everything it holds belongs to this instance.
local Bridge = require('tandem.bridge')
local Context = require('tandem.context')
local Diffs = require('tandem.diff')
local Log = require('tandem.log')
local Reload = require('tandem.reload')
local TerminalEnv = require('tandem.terminal_env')
local Terminals = require('tandem.terminal')
local sidecar = require('tandem.sidecar')

local Session = {}
Session.__index = Session

-- How long :TandemStop waits for the sidecar to end; quitting Neovim waits less, for the
-- sidecar and then for the terminals :Tandem opened (hung up first, so they end meanwhile):
-- about a second in all.
local STOP_TIMEOUT = 3000
local QUIT_TIMEOUT = 800
local TERMINALS_QUIT_TIMEOUT = 200

--- A session with `config`; it takes over `terminals` (the :Tandem jobs of the session it
--- replaces), else starts with none.
function Session.new(config, terminals)
  local self = setmetatable({
    config = config,
    log = Log.new({ file = config.log_file, level = config.log_level }),
    state = 'stopped', -- stopped | starting | running | stopping | failed
    error = nil,
    bridge = nil,
    port = nil,
    discovery_files = {},
    clients = {},
    warnings = {},
    quitting = false, -- Neovim is quitting: the windows are left as they are
    context = Context.new(),
    terminal_env = TerminalEnv.new(),
    terminals = terminals or Terminals.new(),
  }, Session)
  -- One quit hook, the current session's: a session that replaces this one replaces it.
  vim.api.nvim_create_autocmd('VimLeavePre', {
    group = vim.api.nvim_create_augroup('TandemQuit', { clear = true }),
    callback = function()
      self:_quit()
    end,
  })
  self.reload = Reload.new(self.log)
  self.diffs = Diffs.new({
    config = config,
    log = self.log,
    answer = function(view, outcome, content, done)
      self:_answer(view, outcome, content, done)
    end,
  })
  return self
end

local function editor_version()
  local v = vim.version()
  return ('%d.%d.%d'):format(v.major, v.minor, v.patch)
end

function Session:_changed()
  pcall(vim.cmd, 'redrawstatus!')
  vim.api.nvim_exec_autocmds('User', { pattern = 'TandemStatusChanged', modeline = false })
end

function Session:_fail(message)
  self.state = 'failed'
  self.error = message
  self.log:error(message)
  self:_changed()
end

--- Starts the sidecar (no-op when it runs or is starting).
function Session:start()
  if self.state == 'starting' or self.state == 'running' then
    return
  end
  local problem = sidecar.problem(self.config)
  if problem then
    return self:_fail(problem)
  end
  self.state, self.error = 'starting', nil
  local bridge, err
  bridge, err = Bridge.start(sidecar.command(self.config), {
    show_diff = function(diff)
      self.diffs:open(diff)
    end,
    close_diff = function(id)
      local content, view = self.diffs:close(id)
      -- Approved in the terminal: the CLI writes the file now.
      self.reload:after_write(view.path)
      return content
    end,
    diff_closed = function(notice)
      self.diffs:closed(notice)
    end,
    clients_changed = function(clients)
      self:_clients_changed(clients)
    end,
    warnings_changed = function(warnings)
      self:_warnings_changed(warnings)
    end,
    -- What became of a diff answered in the CLI's terminal: the user asked, so always tell.
    diff_outcome = function(outcome)
      self.log:tell(outcome.kind == 'changed' and 'warn' or 'info', outcome.message)
    end,
    env_changed = function(env)
      self.terminal_env:set(env)
    end,
    log = function(line)
      self.log:debug('sidecar: ' .. line)
    end,
    exited = function(code)
      self:_exited(bridge, code)
    end,
  })
  if not bridge then
    return self:_fail('cannot start the sidecar: ' .. err)
  end
  self.bridge = bridge
  self:_changed()
  bridge:initialize({
    name = 'neovim',
    display_name = 'Neovim',
    version = editor_version(),
    pid = vim.fn.getpid(),
    folders = Context.workspace_folders(),
  }, function(init_error, result)
    if bridge ~= self.bridge then
      return
    end
    if init_error then
      self:_fail('the sidecar did not start: ' .. init_error)
      bridge:stop(STOP_TIMEOUT)
      return
    end
    self:_running(result)
  end)
end

function Session:_running(result)
  self.state = 'running'
  self.port = result.port
  self.discovery_files = result.discovery_files
  self.terminal_env:set(result.env)
  self.context:attach(self.bridge, result.selection_limit)
  self.log:info(('listening on port %d'):format(self.port))
  self:_warnings_changed(result.warnings)
end

-- Shown by :TandemStatus and :checkhealth; written to the log.
function Session:_warnings_changed(warnings)
  self.warnings = warnings
  for _, warning in ipairs(warnings) do
    self.log:info(('warning (%s): %s %s'):format(warning.code, warning.message, warning.fix or ''))
  end
  self:_changed()
end

function Session:_clients_changed(clients)
  self.clients = clients
  local names = {}
  for _, client in ipairs(clients) do
    names[#names + 1] = tostring(client.name)
  end
  self.log:info('connected CLIs: ' .. (#names > 0 and table.concat(names, ', ') or 'none'))
  self:_changed()
end

function Session:_answer(view, outcome, content, done)
  if not self.bridge then
    return done({ message = 'the sidecar is not running' })
  end
  if outcome == 'accepted' then
    -- Before the CLI can write: the buffer of the file follows what it writes.
    self.reload:after_write(view.path)
    self.bridge:accept_diff(view.id, content, done)
  else
    self.bridge:reject_diff(view.id, done)
  end
end

function Session:_exited(bridge, code)
  if bridge ~= self.bridge then
    return
  end
  self.bridge = nil
  -- The sidecar rejected the open diffs as it stopped, or, gone, can pass on no answer: the
  -- views just close.
  self.diffs:close_all({ keep_windows = self.quitting })
  self.context:detach()
  self.reload:cancel_all()
  self.terminal_env:clear()
  self.port, self.discovery_files, self.clients, self.warnings = nil, {}, {}, {}
  if self.state == 'stopping' then
    self.state = 'stopped'
    self:_changed()
  elseif self.state ~= 'failed' then
    self:_fail(('the sidecar exited (code %d); its log is in %s'):format(code, self.config.log_file))
  end
end

--- Stops the sidecar, which rejects the open diffs and removes its discovery files.
--- @param opts? { quitting: boolean } `quitting`: Neovim is quitting: leave the windows alone
---   and wait less.
function Session:stop(opts)
  opts = opts or {}
  local bridge = self.bridge
  if not bridge then
    self.state, self.error = 'stopped', nil
    self:_changed()
    return
  end
  self.quitting = opts.quitting == true
  self.state = 'stopping'
  self.context:detach()
  bridge:stop(opts.quitting and QUIT_TIMEOUT or STOP_TIMEOUT)
  -- Stopped now, even if the report of the exit is still on its way (it is then ignored).
  self:_exited(bridge, 0)
end

-- Neovim is quitting: nothing Tandem started outlives it, and quitting stays quick.
function Session:_quit()
  self.terminals:hang_up()
  self:stop({ quitting = true })
  self.terminals:stop_all(TERMINALS_QUIT_TIMEOUT)
  self.log:close()
end

--- Opens CLI `name` with extra `args` in a terminal window (see :Tandem).
function Session:open_cli(name, args)
  self.terminals:open(self.config, name, args)
end

--- Starts the sidecar if needed and waits (up to `timeout` ms) until it runs.
function Session:ensure_running(timeout)
  self:start()
  vim.wait(timeout, function()
    return self.state ~= 'starting'
  end, 20)
  return self.state == 'running'
end

--- Accepts the diff `id`, or the one in the current tab, or the only one open.
function Session:accept(id)
  self.diffs:accept(id)
end

--- Rejects the diff `id`, or the one in the current tab, or the only one open.
function Session:reject(id)
  self.diffs:reject(id)
end

--- Sends the file of buffer `buf`, or its lines `first`..`last`, to Claude Code's prompt, and
--- tells the user whether one received it (see :Tandem send).
function Session:send(buf, first, last)
  local path = Context.file_path(buf)
  if not path then
    error('this buffer is not a file on disk: write it first', 0)
  end
  if self.state ~= 'running' then
    error('the sidecar is not running: start it with :TandemStart', 0)
  end
  self.bridge:mention(path, first, last, function(err, answer)
    if err then
      self.log:tell('error', err)
    else
      self.log:tell(answer.ok and 'info' or 'warn', answer.message)
    end
  end)
end

--- What :TandemStatus, :checkhealth and the status line show.
function Session:status()
  return {
    state = self.state,
    error = self.error,
    pid = self.bridge and self.bridge:pid() or nil,
    port = self.port,
    clients = self.clients,
    warnings = self.warnings,
    discovery_files = self.discovery_files,
    env = self.terminal_env:get(),
    diffs = vim.tbl_map(function(view)
      return { id = view.id, path = view.path }
    end, self.diffs:list()),
    workspace_folders = Context.workspace_folders(),
    log_file = self.config.log_file,
    command = sidecar.command(self.config),
    version = sidecar.version(),
  }
end

return Session
