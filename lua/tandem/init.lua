-- Tandem for Neovim: the IDE companion of Gemini CLI, Qwen Code and Claude Code.
-- The public API. It holds this Neovim's one Session (session.lua) and hands it to what needs it.
local Session = require('tandem.session')
local config = require('tandem.config')
local doctor = require('tandem.doctor')
local status = require('tandem.status')
local Terminals = require('tandem.terminal')

local M = {}

local START_TIMEOUT = 10000

-- Created by setup(), or with the defaults by the first command that needs it.
local current = nil

local function session()
  if not current then
    current = Session.new(config.resolve({ auto_start = false }))
  end
  return current
end

--- The session, or nil before setup() or the first command.
function M.instance()
  return current
end

--- Configures Tandem (see :help tandem-setup) and, with `auto_start`, starts the sidecar.
--- Calling it again restarts Tandem with the new options.
function M.setup(opts)
  local resolved = config.resolve(opts)
  local terminals = nil
  if current then
    current:stop()
    terminals = current.terminals
  end
  current = Session.new(resolved, terminals)
  if resolved.auto_start then
    current:start()
  end
end

function M.start()
  session():start()
end

function M.stop()
  session():stop()
end

--- A table describing the connection: state, port, clients, discovery files, open diffs...
function M.status()
  return session():status()
end

--- Text for a status line: '' when Tandem is not running.
function M.statusline()
  return current and status.line(current:status()) or ''
end

--- Accepts the diff `id`, or the one in the current tab, or the only one open.
function M.accept(id)
  session():accept(id)
end

--- Rejects the diff `id`, or the one in the current tab, or the only one open.
function M.reject(id)
  session():reject(id)
end

--- Opens CLI `name` ('gemini', 'qwen', or one from the `terminal.clis` option) in a terminal
--- window, after making sure the sidecar runs so that the CLI finds this Neovim.
function M.open_cli(name, args)
  local s = session()
  if not s:ensure_running(START_TIMEOUT) then
    s.log:warn('the sidecar is not running: the CLI will not connect to Neovim (see :TandemStatus)')
  end
  s:open_cli(name, args)
end

--- Sends the current file, or its lines `first`..`last`, to Claude Code's prompt (:Tandem send).
function M.send(first, last)
  session():send(vim.api.nvim_get_current_buf(), first, last)
end

--- The names :Tandem completes.
function M.cli_names()
  return Terminals.names(session().config)
end

--- Shows the report of `tandem doctor` for Neovim's folder in a scratch buffer.
function M.doctor()
  doctor.show_report(session().config)
end

--- The shell line that connects a CLI in another terminal to this Neovim (see :TandemEnv).
--- Raises when the sidecar is not running.
function M.env_line()
  local port = current and current.port
  if not port then
    error('the sidecar is not running: start it with :TandemStart', 0)
  end
  return doctor.env_line(current.config, port)
end

--- Prints the line of env_line() and puts it in the unnamed and clipboard registers.
function M.show_env_line()
  local line = M.env_line()
  vim.fn.setreg('"', line)
  if vim.fn.has('clipboard') == 1 then
    pcall(vim.fn.setreg, '+', line)
  end
  vim.api.nvim_echo({ { line } }, true, {})
end

--- Prints what :TandemStatus shows.
function M.print_status()
  status.print(M.status())
end

return M
