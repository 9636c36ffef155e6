-- Where the sidecar is: the plugin's root, the built script, and the command that runs it.
local M = {}

local NOT_BUILT = 'the sidecar is not built: run `npm run build:sidecar` in %s (see :help tandem-install)'

--- The plugin's root: the repository that holds lua/, plugin/ and packages/.
function M.root()
  local source = debug.getinfo(1, 'S').source:sub(2)
  return vim.fn.fnamemodify(source, ':p:h:h:h')
end

--- The built sidecar script that the default command runs.
function M.script()
  return M.root() .. '/packages/cli/dist/tandem.js'
end

--- The command that starts the sidecar with `config`.
function M.command(config)
  return config.cmd or { config.node, M.script(), 'bridge' }
end

--- The command that runs the built script's command `args` (like { 'doctor' }) with `config`'s
--- Node.js; raises when the script is not built.
function M.tool(config, args)
  if vim.fn.filereadable(M.script()) ~= 1 then
    error(NOT_BUILT:format(M.root()), 0)
  end
  return vim.list_extend({ config.node, M.script() }, args)
end

--- Why the sidecar of `config` cannot start, or nil.
function M.problem(config)
  local cmd = M.command(config)
  if not config.cmd and vim.fn.filereadable(cmd[2]) ~= 1 then
    return NOT_BUILT:format(M.root())
  end
  if vim.fn.executable(cmd[1]) ~= 1 then
    return ('cannot start the sidecar: `%s` is not an executable (see :checkhealth tandem)'):format(cmd[1])
  end
  return nil
end

return M
