-- The text selected in the current window's Visual (or Select) mode: charwise, linewise or
-- blockwise. Read up to a limit, so that a huge selection costs no more than a small one; the
-- engine trims it to exactly what the CLIs take.
local M = {}

local BLOCK = '\22'
local VISUAL_KINDS = { v = 'v', V = 'V', [BLOCK] = BLOCK, s = 'v', S = 'V', ['\19'] = BLOCK }
local MAXCOL = 2147483647
-- Lines are read this many at a time, until the limit is reached.
local CHUNK = 256

--- The kind of the current Visual selection ('v', 'V' or CTRL-V), or nil outside Visual mode.
function M.kind(mode)
  return VISUAL_KINDS[mode:sub(1, 1)]
end

-- A character takes at most 4 bytes in UTF-8.
local CHARACTER_BYTES = 4

-- The first `limit` characters of `text`, or nil when it has fewer.
local function first_characters(text, limit)
  if #text < limit then
    return nil
  end
  if not text:find('[\128-\255]') then
    return text:sub(1, limit)
  end
  local count = 0
  for i = 1, #text do
    local byte = text:byte(i)
    -- A character starts at each byte that does not continue one.
    if byte < 0x80 or byte >= 0xC0 then
      if count == limit then
        return text:sub(1, i - 1)
      end
      count = count + 1
    end
  end
  return count == limit and text or nil
end

-- Lines first..last (1-based) of `buf`, each through `take(line, row)`, joined by newlines:
-- their first `limit` characters (nil: all of them), and the last row read for them. Lines are
-- read until `limit` bytes, enough unless some characters take more than one byte; then until
-- the most that `limit` characters can take.
local function collect(buf, first, last, take, limit)
  local parts, size, row = {}, 0, first
  local text
  for _, bytes in ipairs(limit and { limit, limit * CHARACTER_BYTES } or { math.huge }) do
    while row <= last and size < bytes do
      local chunk = vim.api.nvim_buf_get_lines(buf, row - 1, math.min(last, row + CHUNK - 1), false)
      for _, line in ipairs(chunk) do
        local piece = take(line, row)
        parts[#parts + 1] = piece
        size, row = size + #piece + 1, row + 1
        if size >= bytes then
          break
        end
      end
    end
    text = table.concat(parts, '\n')
    local cut = limit and first_characters(text, limit)
    if cut or row > last then
      return cut or text, row - 1
    end
  end
  return text, row - 1
end

-- Byte length of the UTF-8 character starting at byte `i`.
local function char_length(line, i)
  local byte = line:byte(i) or 0
  if byte >= 0xF0 then
    return 4
  elseif byte >= 0xE0 then
    return 3
  elseif byte >= 0xC0 then
    return 2
  end
  return 1
end

-- The part of `line` between screen columns `left` and `right` (1-based, inclusive).
local function columns(line, left, right)
  local tabstop = vim.bo.tabstop
  local out, col, i = {}, 1, 1
  while i <= #line and col <= right do
    local n = char_length(line, i)
    local char = line:sub(i, i + n - 1)
    local width
    if char == '\t' then
      width = tabstop - (col - 1) % tabstop
    elseif n == 1 then
      width = 1
    else
      width = vim.fn.strdisplaywidth(char)
    end
    if col >= left then
      out[#out + 1] = char
    end
    col = col + width
    i = i + n
  end
  return table.concat(out)
end

-- The last charwise or linewise selection read, for a look at the same selection's start.
local last_read = { key = nil, row = 0, text = nil }

--- The selected text in the current window (at most `limit` characters of it, when given), or
--- nil when not in Visual mode.
function M.text(mode, limit)
  local kind = M.kind(mode)
  if not kind then
    return nil
  end
  local buf = vim.api.nvim_get_current_buf()
  local a, b = vim.fn.getpos('v'), vim.fn.getpos('.')
  if a[2] > b[2] or (a[2] == b[2] and a[3] > b[3]) then
    a, b = b, a
  end
  local first, last = a[2], b[2]
  if kind == 'V' or kind == 'v' then
    -- The same start in the same text, and the end beyond the rows the limit was reached in
    -- last time: the same text (a selection growing or shrinking at its end).
    local tick = vim.api.nvim_buf_get_changedtick(buf)
    local key = table.concat({ buf, tick, kind, first, a[3], tostring(limit) }, ':')
    if key == last_read.key and last > last_read.row then
      return last_read.text
    end
    local text, row = collect(buf, first, last, kind == 'V' and function(line)
      return line
    end or function(line, row)
      local from = row == first and a[3] or 1
      local to = #line
      if row == last then
        to = b[3] + char_length(line, b[3]) - 1
      end
      return line:sub(from, to)
    end, limit)
    last_read = { key = key, row = row < last and row or math.huge, text = text }
    return text
  end
  local left_col = vim.fn.virtcol({ a[2], a[3] })
  local right_col = vim.fn.virtcol({ b[2], b[3] })
  local left, right = math.min(left_col, right_col), math.max(left_col, right_col)
  if vim.fn.winsaveview().curswant >= MAXCOL then
    right = MAXCOL
  end
  return (collect(buf, first, last, function(line)
    return columns(line, left, right)
  end, limit))
end

return M
