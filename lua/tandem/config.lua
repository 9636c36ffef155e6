-- The options of require('tandem').setup(), their defaults and their validation.
local M = {}

local function defaults()
  return {
    -- Start the sidecar as soon as setup() runs.
    auto_start = true,
    -- The `tandem` command, like { 'tandem' }; nil means the one built in the plugin's folder
    -- (run by `node`), else the `tandem` on the PATH.
    command = nil,
    -- The whole sidecar command; nil means the `tandem` command with 'bridge'.
    cmd = nil,
    -- The Node.js executable (version 20 or newer) that runs the sidecar built in the plugin.
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
        -- Claude Code writes edits without asking in its newest default mode; this mode asks,
        -- so its edits open as diffs here.
        claude = { 'claude', '--permission-mode', 'default' },
      },
    },
  }
end

M.levels = { debug = 1, info = 2, warn = 3, error = 4 }

local function is_keymap(value)
  return value == false or (type(value) == 'string' and value ~= '')
end

local function is_string_list(value)
  if type(value) ~= 'table' or #value == 0 then
    return false
  end
  for _, item in ipairs(value) do
    if type(item) ~= 'string' then
      return false
    end
  end
  return true
end

local function of_type(name)
  return function(value)
    return type(value) == name
  end
end

local function one_of(...)
  local allowed = { ... }
  return function(value)
    return vim.tbl_contains(allowed, value)
  end
end

-- Raises "option: expected ..." unless `valid(value)`.
local function check(option, value, valid, expected)
  if not valid(value) then
    error(('%s: expected %s, got %s'):format(option, expected, vim.inspect(value)), 0)
  end
end

--- Merges the user's options over the defaults; raises a readable error for a bad option.
function M.resolve(user)
  check('opts', user, function(v)
    return v == nil or type(v) == 'table'
  end, 'a table')
  local config = vim.tbl_deep_extend('force', defaults(), user or {})
  -- Lists are replaced, not merged: a user's CLI command must not keep the default's arguments.
  for name, cmd in pairs((user and type(user.terminal) == 'table' and user.terminal.clis) or {}) do
    config.terminal.clis[name] = cmd
  end
  check('auto_start', config.auto_start, of_type('boolean'), 'boolean')
  check('command', config.command, function(v)
    return v == nil or is_string_list(v)
  end, 'a list of strings, like { "tandem" }')
  check('cmd', config.cmd, function(v)
    return v == nil or is_string_list(v)
  end, 'a list of strings, like { "tandem", "bridge" }')
  check('node', config.node, of_type('string'), 'string')
  check('log_level', config.log_level, one_of('debug', 'info', 'warn', 'error'), "'debug', 'info', 'warn' or 'error'")
  check('log_file', config.log_file, of_type('string'), 'string')
  check('diff.layout', config.diff.layout, one_of('vertical', 'horizontal'), "'vertical' or 'horizontal'")
  check('diff.keymaps.accept', config.diff.keymaps.accept, is_keymap, 'a key sequence or false')
  check('diff.keymaps.reject', config.diff.keymaps.reject, is_keymap, 'a key sequence or false')
  check('terminal.split', config.terminal.split, of_type('string'), 'string')
  for name, cmd in pairs(config.terminal.clis) do
    check('terminal.clis.' .. tostring(name), cmd, is_string_list, 'a list of strings')
  end
  return config
end

return M
