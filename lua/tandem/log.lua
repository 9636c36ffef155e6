-- The plugin's log: every message goes to the log file; those at or above the configured
-- level also reach the user through vim.notify.
local levels = require('tandem.config').levels

local Log = {}
Log.__index = Log

local MAX_SIZE = 1024 * 1024
local NOTIFY_LEVELS = {
  debug = vim.log.levels.DEBUG,
  info = vim.log.levels.INFO,
  warn = vim.log.levels.WARN,
  error = vim.log.levels.ERROR,
}

--- @param opts { file: string, level: string }
function Log.new(opts)
  return setmetatable({ path = opts.file, threshold = levels[opts.level], file = nil }, Log)
end

function Log:_write(level, message)
  if not self.file then
    vim.fn.mkdir(vim.fn.fnamemodify(self.path, ':h'), 'p')
    -- Start afresh once the file has grown large, rather than rotating.
    local mode = vim.fn.getfsize(self.path) > MAX_SIZE and 'w' or 'a'
    self.file = io.open(self.path, mode)
    if not self.file then
      return
    end
  end
  self.file:write(os.date('%Y-%m-%d %H:%M:%S'), ' ', level:upper(), ' ', message, '\n')
  self.file:flush()
end

--- vim.notify now, or once Neovim has started: what is said while it starts (from setup() in
--- init.lua, say) is wiped by its first screen, and only :messages would keep it.
local function notify(text, level)
  if vim.v.vim_did_enter == 1 then
    return vim.notify(text, level)
  end
  vim.api.nvim_create_autocmd('VimEnter', {
    once = true,
    callback = function()
      vim.schedule(function()
        vim.notify(text, level)
      end)
    end,
  })
end

function Log:log(level, message)
  self:_write(level, message)
  if levels[level] >= self.threshold then
    notify('Tandem: ' .. message, NOTIFY_LEVELS[level])
  end
end

--- Tells the user `message` whatever the level, in one line cut to fit: a longer one would stop
--- Neovim at a hit-enter prompt, maybe in the middle of typing in a CLI. The log keeps it whole.
function Log:tell(level, message)
  self:_write(level, message)
  local text = 'Tandem: ' .. (message:gsub('\n', ' '))
  local room = math.max(vim.v.echospace - 1, 20)
  if vim.fn.strdisplaywidth(text) > room then
    local n = room - 1
    while vim.fn.strdisplaywidth(vim.fn.strcharpart(text, 0, n) .. '…') > room do
      n = n - 1
    end
    text = vim.fn.strcharpart(text, 0, n) .. '…'
  end
  notify(text, NOTIFY_LEVELS[level])
end

-- Log:debug(message), Log:info(message), Log:warn(message), Log:error(message).
for _, level in ipairs({ 'debug', 'info', 'warn', 'error' }) do
  Log[level] = function(self, message)
    self:log(level, message)
  end
end

function Log:close()
  if self.file then
    self.file:close()
    self.file = nil
  end
end

return Log
