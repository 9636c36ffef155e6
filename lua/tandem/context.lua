-- What the user looks at: file buffers opened, closed and focused, the cursor and the selection,
-- and the workspace folder. Each editor event becomes at most one call of the bridge; the
-- engine debounces and trims.
local selection = require('tandem.selection')

local Context = {}
Context.__index = Context

-- Characters before byte `index` of `line`; vim.str_utfindex changed its signature in 0.11.
local char_index = vim.fn.has('nvim-0.11') == 1
    and function(line, index)
      return vim.str_utfindex(line, 'utf-32', index, false)
    end
  or function(line, index)
    return (vim.str_utfindex(line, index))
  end

-- The 1-based character at byte `col` (0-based) of `line`.
local function character_at(line, col)
  local ok, character = pcall(char_index, line, math.min(col, #line))
  return (ok and character or col) + 1
end

function Context.new()
  return setmetatable({
    bridge = nil, -- while attached: where the facts go (see bridge.lua)
    group = nil,
    open = {}, -- buffer number -> path of each file buffer reported as opened
    focused = nil,
    last_cursor = nil,
    workspace = nil,
    selection_chars = nil, -- how much of a selection to read (nil: all of it)
  }, Context)
end

--- The absolute path of a buffer that shows a real file on disk, else nil.
function Context.file_path(buf)
  if not vim.api.nvim_buf_is_valid(buf) or vim.bo[buf].buftype ~= '' then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' or name:find('^%a[%w+.-]*://') then
    return nil
  end
  local path = vim.fn.fnamemodify(name, ':p')
  if vim.fn.filereadable(path) ~= 1 then
    return nil
  end
  return path
end

--- The workspace folders the CLIs should match their working directory against.
function Context.workspace_folders()
  return { vim.fn.getcwd(-1, -1) }
end

function Context:_opened(buf)
  local path = vim.fn.buflisted(buf) == 1 and Context.file_path(buf) or nil
  local known = self.open[buf]
  if known == path then
    return path
  end
  if known then
    self:_closed(buf)
  end
  if path then
    self.open[buf] = path
    self.bridge:file_opened(path)
  end
  return path
end

function Context:_closed(buf)
  local path = self.open[buf]
  if not path then
    return
  end
  self.open[buf] = nil
  if self.focused == path then
    self.focused = nil
    self.last_cursor = nil
  end
  self.bridge:file_closed(path)
end

function Context:_focused(buf)
  local path = self:_opened(buf)
  if not path then
    return
  end
  if self.focused ~= path then
    self.focused = path
    self.last_cursor = nil
    self.bridge:file_focused(path)
  end
  self:_cursor()
end

-- Sends the cursor of the current window if it shows the focused file and moved since the
-- last message. The comparison key is built from cheap values only; the selected text is read
-- just when the key changed.
function Context:_cursor()
  local buf = vim.api.nvim_get_current_buf()
  local path = self.open[buf]
  if not path or path ~= self.focused then
    return
  end
  local mode = vim.api.nvim_get_mode().mode
  local cursor = vim.api.nvim_win_get_cursor(0)
  local row, col = cursor[1], cursor[2]
  local key = row .. ':' .. col
  local visual = selection.kind(mode)
  local v
  if visual then
    v = vim.fn.getpos('v')
    key = table.concat({ key, visual, v[2], v[3], vim.api.nvim_buf_get_changedtick(buf) }, ':')
  end
  key = path .. ':' .. key
  if key == self.last_cursor then
    return
  end
  self.last_cursor = key
  local character = character_at(vim.api.nvim_get_current_line(), col)
  if not visual then
    self.bridge:cursor_changed(path, row, character)
    return
  end
  -- Where the selection began: the cursor is its other end.
  local anchor_line = vim.api.nvim_buf_get_lines(buf, v[2] - 1, v[2], false)[1] or ''
  local anchor = { line = v[2], character = character_at(anchor_line, v[3] - 1) }
  self.bridge:cursor_changed(path, row, character, selection.text(mode, self.selection_chars), anchor)
end

function Context:_workspace()
  local folders = Context.workspace_folders()
  local key = table.concat(folders, '\n')
  if key ~= self.workspace then
    self.workspace = key
    self.bridge:workspace_changed(folders)
  end
end

--- Starts following the editor, telling `bridge`; reports the buffers already open and the
--- focused one. Of a selection it reads what the CLIs keep, `selection_limit` characters, and
--- one more: the sidecar then knows that the selection goes on, and marks the cut as the CLIs do.
function Context:attach(bridge, selection_limit)
  self.bridge = bridge
  self.selection_chars = selection_limit and selection_limit + 1
  self.group = vim.api.nvim_create_augroup('TandemContext', { clear = true })
  self.workspace = table.concat(Context.workspace_folders(), '\n')
  local function on(events, callback)
    vim.api.nvim_create_autocmd(events, { group = self.group, callback = callback })
  end
  on({ 'BufAdd', 'BufReadPost', 'BufWritePost', 'BufFilePost' }, function(args)
    -- Saving a new file or renaming one can turn the current buffer into a focused file.
    if args.buf == vim.api.nvim_get_current_buf() then
      self:_focused(args.buf)
    else
      self:_opened(args.buf)
    end
  end)
  on('BufEnter', function(args)
    self:_focused(args.buf)
  end)
  on({ 'BufDelete', 'BufWipeout' }, function(args)
    self:_closed(args.buf)
  end)
  on({ 'CursorMoved', 'CursorMovedI', 'ModeChanged' }, function()
    self:_cursor()
  end)
  on('DirChanged', function()
    self:_workspace()
  end)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    self:_opened(buf)
  end
  self:_focused(vim.api.nvim_get_current_buf())
end

function Context:detach()
  if self.group then
    vim.api.nvim_del_augroup_by_id(self.group)
    self.group = nil
  end
  self.bridge, self.open, self.focused, self.last_cursor, self.workspace = nil, {}, nil, nil, nil
end

return Context
