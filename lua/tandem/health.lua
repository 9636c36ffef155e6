-- :checkhealth tandem
local config = require('tandem.config')
local sidecar = require('tandem.sidecar')
local status_text = require('tandem.status')

local M = {}

local MIN_NODE = 20
-- How long :checkhealth waits for a sidecar that is starting (it takes well under a second).
local START_WAIT_MS = 5000

-- vim.health (start/ok/... since 0.9, report_* in 0.8) or the health# functions of 0.7.
local function reporter()
  local h = vim.health
  if h and h.start then
    return h
  end
  if h and h.report_start then
    return {
      start = h.report_start,
      ok = h.report_ok,
      info = h.report_info,
      warn = h.report_warn,
      error = h.report_error,
    }
  end
  local function call(name)
    return function(...)
      vim.fn['health#report_' .. name](...)
    end
  end
  return { start = call('start'), ok = call('ok'), info = call('info'), warn = call('warn'), error = call('error') }
end

local function check_node(h, node)
  local path = vim.fn.exepath(node)
  if path == '' then
    h.error(('Node.js not found: `%s`'):format(node), {
      ('Install Node.js %d or newer, or set the `node` option of setup()'):format(MIN_NODE),
    })
    return
  end
  local version = vim.trim(vim.fn.system({ path, '--version' }))
  local major = tonumber(version:match('^v(%d+)'))
  if vim.v.shell_error ~= 0 or not major then
    h.error(('`%s --version` failed: %s'):format(path, version))
  elseif major < MIN_NODE then
    h.error(('Node.js %s at %s is too old'):format(version, path), {
      ('Tandem needs Node.js %d or newer'):format(MIN_NODE),
    })
  else
    h.ok(('Node.js %s at %s'):format(version, path))
  end
end

local function check_sidecar(h, settings)
  if settings.cmd then
    local program = settings.cmd[1]
    if vim.fn.executable(program) == 1 then
      h.ok('sidecar command: ' .. table.concat(settings.cmd, ' '))
    else
      h.error(('sidecar command `%s` is not an executable'):format(program))
    end
    return
  end
  check_node(h, settings.node)
  local tandem = sidecar.tandem(settings)
  if not tandem then
    h.error('no `tandem` command: none built in the plugin\'s folder, none on the PATH', {
      ('Run `npm run build:sidecar` in %s'):format(sidecar.root()),
      'Or put a `tandem` on the PATH (see :help tandem-install)',
      'Or name it with the `command` option of setup() (see :help tandem-install)',
    })
  elseif vim.fn.executable(tandem[1]) ~= 1 then
    h.error(('the tandem command `%s` is not an executable'):format(tandem[1]))
  else
    h.ok('tandem command: ' .. table.concat(tandem, ' '))
  end
end

local function check_connection(h, session)
  if not session then
    h.warn('Tandem is not set up', { "Call require('tandem').setup() in your configuration" })
    return
  end
  -- Run just after Neovim started, the sidecar may be on its way: that is no problem.
  vim.wait(START_WAIT_MS, function()
    return session:status().state ~= 'starting'
  end, 20)
  local status = session:status()
  if status.state == 'running' then
    h.ok(('sidecar running (pid %s), listening on 127.0.0.1:%d'):format(tostring(status.pid), status.port))
  elseif status.state == 'failed' then
    h.error('the sidecar failed: ' .. tostring(status.error), { 'See the log: ' .. status.log_file })
    return
  elseif status.state == 'starting' then
    h.info('the sidecar is still starting: run :checkhealth tandem again in a moment')
    return
  else
    h.warn('the sidecar is ' .. status.state, { 'Start it with :TandemStart' })
    return
  end
  h.info('workspace: ' .. table.concat(status.workspace_folders, ', '))
  if #status.discovery_files == 0 then
    h.warn('the sidecar reported no discovery files: a CLI outside Neovim will not find it')
  end
  for _, file in ipairs(status.discovery_files) do
    if vim.fn.filereadable(file) == 1 then
      h.ok('discovery file: ' .. file)
    else
      h.error('discovery file missing: ' .. file, { 'Restart the sidecar with :TandemStop and :TandemStart' })
    end
  end
  local names = vim.tbl_keys(status.env)
  table.sort(names)
  if #names > 0 then
    h.ok('terminals opened from now on get: ' .. table.concat(names, ', '))
  end
  if #status.clients == 0 then
    h.info('no CLI connected: start one with :Tandem gemini or :Tandem qwen')
  end
  for _, client in ipairs(status.clients) do
    h.ok('connected: ' .. status_text.client_label(client))
  end
  for _, warning in ipairs(status.warnings) do
    if warning.fix then
      h.warn(warning.message, { warning.fix })
    else
      h.warn(warning.message)
    end
  end
end

function M.check()
  local h = reporter()
  h.start('Tandem')
  if vim.fn.has('nvim-0.7') == 1 then
    h.ok('Neovim ' .. tostring(vim.fn.matchstr(vim.fn.execute('version'), 'NVIM v\\zs[^\\n]*')))
  else
    h.error('Tandem needs Neovim 0.7 or newer')
  end
  local session = require('tandem').instance()
  check_sidecar(h, session and session.config or config.resolve({}))
  check_connection(h, session)
end

return M
