-- The options of require('tandem').setup(), their defaults and their validation.
local M = {}

local function defaults()
  return {
    -- Start the sidecar as soon as setup() runs.
    auto_start = true,
    -- The sidecar command; nil means `{node, <plugin root>/packages/cli/dist/tandem.js, 'bridge'}`.
    cmd = nil,
    -- The Node.js executable (version 20 or newer) that runs the sidecar.
    node = 'node',
    -- Messages at or above this level reach vim.notify: 'debug', 'info', 'warn', 'error'.
    log_level = 'warn',
    -- Where the plugin and the sidecar's own log go.
    log_file = vim.fn.stdpath('cache') .. '/tandem.log',
    diff = {
      -- 'vertical': the file on the left, the proposal on the right; 'horizontal': above/below.
      layout = 'vertical',
      -- Buffer-local mappings in the diff tab; false disables one.
      keymaps = {
        accept = '<leader>da',
        reject = '<leader>dr',
      },
    },
    terminal = {
      -- The Ex command that makes the window :Tandem opens the CLI in.
      split = 'botright vsplit',
      -- The command of each CLI :Tandem knows.
      clis = {
        gemini = { 'gemini' },
        qwen = { 'qwen' },
      },
    },
  }
end

M.levels = { debug = 1, info = 2, warn = 3, error = 4 }

local function is_keymap(value)
  return value == false or (type(value) == 'string' and value ~= '')
end

--- Merges the user's options over the defaults; raises a readable error for a bad option.
function M.resolve(user)
  vim.validate({ opts = { user, 'table', true } })
  local config = vim.tbl_deep_extend('force', defaults(), user or {})
  -- Lists are replaced, not merged: a user's CLI command must not keep the default's arguments.
  for name, cmd in pairs((user and user.terminal and user.terminal.clis) or {}) do
    config.terminal.clis[name] = cmd
  end
  vim.validate({
    auto_start = { config.auto_start, 'boolean' },
    cmd = { config.cmd, 'table', true },
    node = { config.node, 'string' },
    log_level = {
      config.log_level,
      function(v)
        return M.levels[v] ~= nil
      end,
      "one of 'debug', 'info', 'warn', 'error'",
    },
    log_file = { config.log_file, 'string' },
    ['diff.layout'] = {
      config.diff.layout,
      function(v)
        return v == 'vertical' or v == 'horizontal'
      end,
      "'vertical' or 'horizontal'",
    },
    ['diff.keymaps.accept'] = { config.diff.keymaps.accept, is_keymap, 'a key sequence or false' },
    ['diff.keymaps.reject'] = { config.diff.keymaps.reject, is_keymap, 'a key sequence or false' },
    ['terminal.split'] = { config.terminal.split, 'string' },
    ['terminal.clis'] = { config.terminal.clis, 'table' },
  })
  if config.cmd ~= nil and (#config.cmd == 0 or type(config.cmd[1]) ~= 'string') then
    error('cmd: expected a list of strings, like { "tandem", "bridge" }', 0)
  end
  return config
end

return M
