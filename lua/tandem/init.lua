-- Tandem for Neovim: the IDE companion of Gemini CLI and Qwen Code.
-- This module is the public API; one App per Neovim holds the state.
local App = require('tandem.app')
local config = require('tandem.config')
local terminal = require('tandem.terminal')

local M = {}

local START_TIMEOUT = 10000

--- The running instance, or nil before setup() or the first command.
function M.instance()
  return M._app
end

local function app()
  if not M._app then
    M._app = App.new(config.resolve({ auto_start = false }))
  end
  return M._app
end

--- Configures Tandem (see :help tandem-setup) and, with `auto_start`, starts the sidecar.
--- Calling it again restarts Tandem with the new options.
function M.setup(opts)
  local resolved = config.resolve(opts)
  if M._app then
    M._app:stop()
  end
  M._app = App.new(resolved)
  if resolved.auto_start then
    M._app:start()
  end
end

function M.start()
  app():start()
end

function M.stop()
  app():stop()
end

--- A table describing the connection: state, port, clients, discovery files, open diffs...
function M.status()
  return app():status()
end

--- Text for a status line: '' when Tandem is not running.
function M.statusline()
  return M._app and M._app:statusline() or ''
end

--- Accepts the diff `id`, or the one in the current tab, or the only one open.
function M.accept(id)
  app().diffs:accept(id)
end

--- Rejects the diff `id`, or the one in the current tab, or the only one open.
function M.reject(id)
  app().diffs:reject(id)
end

--- Opens CLI `name` ('gemini', 'qwen', or one from the `terminal.clis` option) in a terminal
--- window, after making sure the sidecar runs so that the CLI finds this Neovim.
function M.open_cli(name, args)
  local instance = app()
  if not instance:ensure_running(START_TIMEOUT) then
    instance.log:warn('the sidecar is not running: the CLI will not connect to Neovim (see :TandemStatus)')
  end
  terminal.open(instance.config, name, args)
end

--- The names :Tandem completes.
function M.cli_names()
  return terminal.names(app().config)
end

--- Prints what :TandemStatus shows.
function M.print_status()
  local s = M.status()
  local lines = { { 'Tandem: ' .. s.state .. (s.pid and (' (sidecar pid ' .. s.pid .. ')') or '') } }
  if s.error then
    lines[#lines + 1] = { 'Error: ' .. s.error, 'ErrorMsg' }
  end
  if s.port then
    lines[#lines + 1] = { 'Port: ' .. s.port }
  end
  lines[#lines + 1] = { 'Workspace: ' .. table.concat(s.workspace_folders, ', ') }
  local clients = {}
  for _, client in ipairs(s.clients) do
    clients[#clients + 1] = tostring(client.name) .. (client.version and (' ' .. tostring(client.version)) or '')
  end
  lines[#lines + 1] = { 'Connected CLIs: ' .. (#clients > 0 and table.concat(clients, ', ') or 'none') }
  lines[#lines + 1] = { 'Discovery files:' .. (#s.discovery_files > 0 and '' or ' none') }
  for _, file in ipairs(s.discovery_files) do
    lines[#lines + 1] = { '  ' .. file }
  end
  for _, diff in ipairs(s.diffs) do
    lines[#lines + 1] = { 'Open diff: ' .. diff.path }
  end
  lines[#lines + 1] = { 'Log: ' .. s.log_file }
  local chunks = {}
  for i, line in ipairs(lines) do
    chunks[#chunks + 1] = { line[1] .. (i < #lines and '\n' or ''), line[2] }
  end
  vim.api.nvim_echo(chunks, true, {})
end

return M
