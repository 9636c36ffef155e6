-- Whole-file text <-> buffer lines, keeping what lines lose: the final newline and CRLF endings.
local M = {}

--- @return string[] lines, { eol: boolean, crlf: boolean } shape
function M.to_lines(text)
  local crlf = text:find('\r\n', 1, true) ~= nil and not text:gsub('\r\n', ''):find('\n', 1, true)
  if crlf then
    text = text:gsub('\r\n', '\n')
  end
  local eol = text:sub(-1) == '\n'
  if eol then
    text = text:sub(1, -2)
  end
  return vim.split(text, '\n', { plain = true }), { eol = eol, crlf = crlf }
end

function M.from_lines(lines, shape)
  local separator = shape.crlf and '\r\n' or '\n'
  local text = table.concat(lines, separator)
  if shape.eol then
    text = text .. separator
  end
  return text
end

return M
