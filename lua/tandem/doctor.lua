-- Helping a CLI connect: :TandemDoctor shows what `tandem doctor` finds, and :TandemEnv gives
-- the line that connects a CLI in another terminal to this Neovim. Both run the built script.
local sidecar = require('tandem.sidecar')

local M = {}

local REPORT_NAME = 'tandem://doctor'

-- One word that a POSIX shell, or fish when `fish`, reads back exactly (the rule of the
-- command's shell-quote.ts): inside fish's single quotes, a backslash escapes.
local function shell_word(word, fish)
  if word:match('^[%w@%%+=:,./_-]+$') then
    return word
  end
  if fish then
    return "'" .. word:gsub("[\\']", '\\%0') .. "'"
  end
  return "'" .. word:gsub("'", [['\'']]) .. "'"
end

local function without_last_empty(lines)
  if lines[#lines] == '' then
    table.remove(lines)
  end
  return lines
end

local function scratch_buffer()
  local old = vim.fn.bufnr('^' .. REPORT_NAME .. '$')
  if old ~= -1 then
    vim.api.nvim_buf_delete(old, { force = true })
  end
  vim.cmd('botright new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  vim.api.nvim_buf_set_name(buf, REPORT_NAME)
  return buf
end

--- Runs `tandem doctor` for Neovim's folder in Neovim's environment (the one terminals
--- inherit) and shows its report in a scratch buffer.
function M.show_report(config)
  local argv = sidecar.tool(config, { 'doctor', '--cwd', vim.fn.getcwd() })
  if vim.fn.executable(argv[1]) ~= 1 then
    error(('`%s` is not an executable: set the `node` option (see :checkhealth tandem)'):format(argv[1]), 0)
  end
  local buf = scratch_buffer()
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { 'Running ' .. table.concat(argv, ' ') .. ' ...' })
  local output = { stdout = {}, stderr = {} }
  local function collect(_, data, stream)
    output[stream] = without_last_empty(data)
  end
  vim.fn.jobstart(argv, {
    stdout_buffered = true,
    stderr_buffered = true,
    on_stdout = collect,
    on_stderr = collect,
    -- After both streams have ended.
    on_exit = function()
      if vim.api.nvim_buf_is_valid(buf) then
        vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.list_extend(output.stdout, output.stderr))
      end
    end,
  })
end

--- The shell line that connects a CLI started in another terminal to the sidecar on `port`:
--- `eval "$(node …/tandem.js env --cwd DIR --port PORT)"` (fish: `… --shell fish | source`).
function M.env_line(config, port)
  local argv = sidecar.tool(config, { 'env', '--cwd', vim.fn.getcwd(), '--port', tostring(port) })
  local node = vim.fn.exepath(argv[1])
  argv[1] = node ~= '' and node or argv[1]
  local fish = (vim.env.SHELL or ''):match('fish$') ~= nil
  if fish then
    vim.list_extend(argv, { '--shell', 'fish' })
  end
  local words = vim.tbl_map(function(word)
    return shell_word(word, fish)
  end, argv)
  local command = table.concat(words, ' ')
  return fish and (command .. ' | source') or ('eval "$(' .. command .. ')"')
end

return M
