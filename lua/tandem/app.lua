-- One Tandem session in this Neovim: the sidecar process, what the editor tells it, and the
-- diff views it asks for.
local Context = require('tandem.context')
local Diffs = require('tandem.diff')
local Log = require('tandem.log')
local Reload = require('tandem.reload')
local Rpc = require('tandem.rpc')

local App = {}
App.__index = App

local PROTOCOL = 1
local SHUTDOWN_TIMEOUT = 2000

--- The plugin's root: the repository that holds lua/, plugin/ and packages/.
function App.root()
  local source = debug.getinfo(1, 'S').source:sub(2)
  return vim.fn.fnamemodify(source, ':p:h:h:h')
end

--- The built sidecar script that the default command runs.
function App.sidecar_script()
  return App.root() .. '/packages/cli/dist/tandem.js'
end

function App.new(config)
  local self = setmetatable({
    config = config,
    log = Log.new({ file = config.log_file, level = config.log_level }),
    state = 'stopped', -- stopped | starting | running | stopping | failed
    error = nil,
    rpc = nil,
    port = nil,
    env = {},
    discovery_files = {},
    clients = {},
    group = nil,
  }, App)
  self.reload = Reload.new(self.log)
  self.context = Context.new(function(method, params)
    self:_notify(method, params)
  end)
  self.diffs = Diffs.new({
    config = config,
    log = self.log,
    answer = function(view, outcome, content)
      self:_answer(view, outcome, content)
    end,
  })
  return self
end

function App:command()
  return self.config.cmd or { self.config.node, App.sidecar_script(), 'bridge' }
end

local function editor_version()
  local v = vim.version()
  return ('%d.%d.%d'):format(v.major, v.minor, v.patch)
end

function App:_changed()
  pcall(vim.cmd, 'redrawstatus!')
  vim.api.nvim_exec_autocmds('User', { pattern = 'TandemStatusChanged', modeline = false })
end

function App:_fail(message)
  self.state = 'failed'
  self.error = message
  self.log:error(message)
  self:_changed()
end

--- Starts the sidecar (no-op when it runs or is starting).
function App:start()
  if self.state == 'starting' or self.state == 'running' then
    return
  end
  local cmd = self:command()
  if not self.config.cmd and vim.fn.filereadable(cmd[2]) ~= 1 then
    return self:_fail(
      ('the sidecar is not built: run `npm run build:sidecar` in %s (see :help tandem-install)'):format(App.root())
    )
  end
  if vim.fn.executable(cmd[1]) ~= 1 then
    return self:_fail(('cannot start the sidecar: `%s` is not an executable (see :checkhealth tandem)'):format(cmd[1]))
  end
  self.state, self.error = 'starting', nil
  local rpc, err
  rpc, err = Rpc.start(cmd, {
    request = function(method, params)
      return self:_request(method, params)
    end,
    notification = function(method, params)
      self:_notification(method, params)
    end,
    stderr = function(line)
      self.log:debug('sidecar: ' .. line)
    end,
    exit = function(code)
      self:_exited(rpc, code)
    end,
  })
  if not rpc then
    return self:_fail('cannot start the sidecar: ' .. err)
  end
  self.rpc = rpc
  self.group = vim.api.nvim_create_augroup('TandemApp', { clear = true })
  vim.api.nvim_create_autocmd('VimLeavePre', {
    group = self.group,
    callback = function()
      self:stop({ leaving = true })
      self.log:close()
    end,
  })
  self:_changed()
  rpc:request('initialize', {
    protocol = PROTOCOL,
    editor = { name = 'neovim', displayName = 'Neovim', version = editor_version(), pid = vim.fn.getpid() },
    workspaceFolders = Context.workspace_folders(),
  }, function(request_error, result)
    if rpc ~= self.rpc then
      return
    end
    if request_error or type(result) ~= 'table' or type(result.port) ~= 'number' then
      self:_fail('the sidecar did not start: ' .. tostring(request_error or 'unexpected reply to initialize'))
      rpc:close_stdin()
      return
    end
    self:_running(result)
  end)
end

function App:_running(result)
  self.state = 'running'
  self.port = result.port
  self.discovery_files = type(result.discoveryFiles) == 'table' and result.discoveryFiles or {}
  self:_set_env(result.env)
  self.context:attach()
  self.log:info(('listening on port %d'):format(self.port))
  self:_changed()
end

function App:_notify(method, params)
  if self.state == 'running' then
    self.rpc:notify(method, params)
  end
end

function App:_request(method, params)
  if type(params) ~= 'table' then
    error('params must be an object', 0)
  end
  if method == 'diff/open' then
    self.diffs:open(params)
    return vim.empty_dict()
  elseif method == 'diff/close' then
    local content, view = self.diffs:close(params.id)
    -- Approved in the terminal: the CLI writes the file now.
    self.reload:after_write(view.path)
    return { content = content }
  end
  return nil
end

--- Every terminal opened from now on inherits these, so a CLI started there connects here.
function App:_set_env(env)
  self:_clear_env()
  for name, value in pairs(type(env) == 'table' and env or {}) do
    vim.env[name] = tostring(value)
    self.env[name] = tostring(value)
  end
end

function App:_notification(method, params)
  if method == 'env/changed' and type(params) == 'table' then
    self:_set_env(params.env)
  elseif method == 'status' and type(params) == 'table' then
    self.clients = type(params.clients) == 'table' and params.clients or {}
    local names = {}
    for _, client in ipairs(self.clients) do
      names[#names + 1] = tostring(client.name)
    end
    self.log:info('connected CLIs: ' .. (#names > 0 and table.concat(names, ', ') or 'none'))
    self:_changed()
  end
end

function App:_answer(view, outcome, content)
  if outcome == 'accepted' then
    self.reload:after_write(view.path)
    self:_notify('diff/accepted', { id = view.id, content = content })
  else
    self:_notify('diff/rejected', { id = view.id })
  end
  self.log:info(('%s the proposal for %s'):format(outcome, view.path))
end

function App:_clear_env()
  for name in pairs(self.env) do
    vim.env[name] = nil
  end
  self.env = {}
end

function App:_exited(rpc, code)
  if rpc ~= self.rpc then
    return
  end
  self.rpc = nil
  -- With the sidecar gone no answer can reach a CLI: just close the views.
  self.diffs:end_all({ answer = false })
  self.context:detach()
  self.reload:cancel_all()
  self:_clear_env()
  self.port, self.discovery_files, self.clients = nil, {}, {}
  if self.group then
    pcall(vim.api.nvim_del_augroup_by_id, self.group)
    self.group = nil
  end
  if self.state == 'stopping' then
    self.state = 'stopped'
    self:_changed()
  elseif self.state ~= 'failed' then
    self:_fail(('the sidecar exited (code %d); its log is in %s'):format(code, self.config.log_file))
  end
end

--- Stops the sidecar: open diffs are rejected, its discovery files removed.
--- @param opts? { leaving: boolean } `leaving`: Neovim is quitting, leave the windows alone.
function App:stop(opts)
  opts = opts or {}
  local rpc = self.rpc
  if not rpc then
    self.state, self.error = 'stopped', nil
    self:_changed()
    return
  end
  self.diffs:end_all({ answer = true, keep_windows = opts.leaving })
  self.context:detach()
  self.state = 'stopping'
  local replied = false
  rpc:request('shutdown', vim.empty_dict(), function()
    replied = true
  end)
  vim.wait(SHUTDOWN_TIMEOUT, function()
    return replied
  end, 10)
  rpc:close_stdin()
  rpc:wait_or_kill(SHUTDOWN_TIMEOUT)
  -- Stopped now, even if the report of the exit is still on its way (it is then ignored).
  self:_exited(rpc, 0)
end

--- Starts the sidecar if needed and waits (up to `timeout` ms) until it runs.
function App:ensure_running(timeout)
  self:start()
  vim.wait(timeout, function()
    return self.state ~= 'starting'
  end, 20)
  return self.state == 'running'
end

function App:status()
  return {
    state = self.state,
    error = self.error,
    pid = self.rpc and self.rpc:pid() or nil,
    port = self.port,
    clients = self.clients,
    discovery_files = self.discovery_files,
    env = self.env,
    diffs = vim.tbl_map(function(view)
      return { id = view.id, path = view.path }
    end, self.diffs:list()),
    workspace_folders = Context.workspace_folders(),
    log_file = self.config.log_file,
    command = self:command(),
  }
end

--- A short text for a status line: '' when stopped.
function App:statusline()
  if self.state == 'running' then
    local names = {}
    for _, client in ipairs(self.clients) do
      names[#names + 1] = tostring(client.name)
    end
    return 'Tandem: ' .. (#names > 0 and table.concat(names, ', ') or 'no CLI')
  elseif self.state == 'starting' then
    return 'Tandem: starting'
  elseif self.state == 'failed' then
    return 'Tandem: failed'
  end
  return ''
end

return App
