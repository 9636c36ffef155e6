-- Which `tandem` command runs, and Tandem's version. The command is the `command` option when
-- set, else the one built in the plugin's folder (`npm run build` or `npm run build:sidecar`
-- there), else the `tandem` on the PATH.
local M = {}

local NOT_FOUND = 'no `tandem` command: run `npm run build:sidecar` in %s, or put a `tandem` on '
  .. 'the PATH; the `command` option names another (see :help tandem-install)'

--- The plugin's root: the repository that holds lua/, plugin/, package.json and packages/.
function M.root()
  local source = debug.getinfo(1, 'S').source:sub(2)
  return vim.fn.fnamemodify(source, ':p:h:h:h')
end

--- The sidecar script built in the plugin's folder.
function M.script()
  return M.root() .. '/packages/cli/dist/tandem.js'
end

--- The plugin's version (the repository's one version), or nil when its package.json is gone.
function M.version()
  local ok, manifest = pcall(function()
    return vim.fn.json_decode(table.concat(vim.fn.readfile(M.root() .. '/package.json'), '\n'))
  end)
  return ok and type(manifest) == 'table' and manifest.version or nil
end

--- The `tandem` command of `config` as a list (like { 'tandem' }), or nil when there is none.
function M.tandem(config)
  if config.command then
    return config.command
  end
  if vim.fn.filereadable(M.script()) == 1 then
    return { config.node, M.script() }
  end
  local on_path = vim.fn.exepath('tandem')
  return on_path ~= '' and { on_path } or nil
end

--- The command that starts the sidecar with `config`, or nil when there is no `tandem`.
function M.command(config)
  local tandem = M.tandem(config)
  return config.cmd or (tandem and vim.list_extend(vim.deepcopy(tandem), { 'bridge' }))
end

--- The command that runs `tandem`'s command `args` (like { 'doctor' }); raises without one.
function M.tool(config, args)
  local tandem = M.tandem(config)
  if not tandem then
    error(NOT_FOUND:format(M.root()), 0)
  end
  return vim.list_extend(vim.deepcopy(tandem), args)
end

--- Why the sidecar of `config` cannot start, or nil.
function M.problem(config)
  local cmd = M.command(config)
  if not cmd then
    return NOT_FOUND:format(M.root())
  end
  if vim.fn.executable(cmd[1]) ~= 1 then
    return ('cannot start the sidecar: `%s` is not an executable (see :checkhealth tandem)'):format(cmd[1])
  end
  return nil
end

return M
