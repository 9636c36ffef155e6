-- :Tandem {cli}: a CLI in a terminal window. It inherits Neovim's environment, which holds
-- what the sidecar told it, so the CLI connects to this Neovim.
local M = {}

local HAS_JOBSTART_TERM = vim.fn.has('nvim-0.11') == 1

--- The names of the CLIs :Tandem knows, sorted.
function M.names(config)
  local names = vim.tbl_keys(config.terminal.clis)
  table.sort(names)
  return names
end

--- Opens CLI `name` with extra `args` in a new window made by `config.terminal.split`.
function M.open(config, name, args)
  local cmd = config.terminal.clis[name]
  if not cmd then
    error(('unknown CLI "%s": :Tandem takes one of %s'):format(tostring(name), table.concat(M.names(config), ', ')), 0)
  end
  local argv = vim.list_extend(vim.deepcopy(cmd), args or {})
  if vim.fn.executable(argv[1]) ~= 1 then
    error(('`%s` is not installed or not on PATH'):format(argv[1]), 0)
  end
  vim.cmd(config.terminal.split)
  vim.api.nvim_win_set_buf(0, vim.api.nvim_create_buf(true, false))
  if HAS_JOBSTART_TERM then
    vim.fn.jobstart(argv, { term = true })
  else
    vim.fn.termopen(argv)
  end
  vim.cmd('startinsert')
end

return M
