-- After a CLI writes a file the user accepted, the file's buffer shows the new text by itself,
-- unless the buffer has unsaved changes: those are never overwritten.
local buffers = require('tandem.buffers')

local uv = vim.uv or vim.loop

local Reload = {}
Reload.__index = Reload

local INTERVAL = 200
-- The CLI writes right after the answer reaches it; stop waiting long after that.
local GIVE_UP = 60 * 1000
-- A write may take several steps (truncate, then write): follow changes until they settle.
local SETTLE = 2000

--- @param log table
function Reload.new(log)
  return setmetatable({ log = log, watches = {} }, Reload)
end

-- What tells one version of a file from the next; 'missing' when there is no file.
local function signature(path)
  local stat = uv.fs_stat(path)
  if not stat then
    return 'missing'
  end
  return table.concat({ stat.ino, stat.size, stat.mtime.sec, stat.mtime.nsec }, ':')
end

function Reload:_reload(path)
  local buf = buffers.for_file(path)
  if not buf then
    return
  end
  if vim.bo[buf].modified then
    self.log:warn(
      vim.fn.fnamemodify(path, ':~:.')
        .. ' changed on disk, and its buffer has unsaved changes that were kept: :e! loads the new text, :w keeps yours'
    )
    return
  end
  -- 'autoread' for just this buffer and just this check, so nothing asks the user.
  vim.api.nvim_buf_call(buf, function()
    vim.cmd('setlocal autoread')
    vim.cmd('silent! checktime ' .. buf)
    vim.cmd('set autoread<')
  end)
end

--- Notes how `path` is now, then reloads its buffer after each change on disk until the
--- changes settle. Call it before the CLI can write.
function Reload:after_write(path)
  self:cancel(path)
  local timer = uv.new_timer()
  local last = signature(path)
  local started, changed = uv.now(), nil
  local function finish()
    self.watches[path] = nil
    timer:stop()
    if not timer:is_closing() then
      timer:close()
    end
  end
  self.watches[path] = finish
  timer:start(
    INTERVAL,
    INTERVAL,
    vim.schedule_wrap(function()
      if self.watches[path] ~= finish then
        return
      end
      local now, current = uv.now(), signature(path)
      if current ~= last then
        last, changed = current, now
        if current ~= 'missing' then
          self:_reload(path)
        end
      end
      if (changed and now - changed > SETTLE) or (not changed and now - started > GIVE_UP) then
        finish()
      end
    end)
  )
end

function Reload:cancel(path)
  local finish = self.watches[path]
  if finish then
    finish()
  end
end

function Reload:cancel_all()
  for path in pairs(self.watches) do
    self:cancel(path)
  end
end

return Reload
