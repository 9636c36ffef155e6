-- Finding the buffer that edits a file.
local uv = vim.uv or vim.loop

local M = {}

--- The loaded buffer that edits the file at `path` (symbolic links resolved), if any.
function M.for_file(path)
  local real = uv.fs_realpath(path)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == '' then
      local name = vim.api.nvim_buf_get_name(buf)
      if name ~= '' then
        local full = vim.fn.fnamemodify(name, ':p')
        if full == path or (real ~= nil and uv.fs_realpath(full) == real) then
          return buf
        end
      end
    end
  end
  return nil
end

return M
