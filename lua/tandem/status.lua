-- How a session's status reads to people: the status line, :TandemStatus, the CLIs' names.
local M = {}

--- A connected CLI as people name it: its name, and its version when the engine knows it.
function M.client_label(client)
  local version = client.version
  if type(version) ~= 'string' or version == '' then
    return tostring(client.name)
  end
  return tostring(client.name) .. ' ' .. version
end

--- A warning of the engine as one line: what goes wrong, then what to do.
function M.warning_text(warning)
  return warning.message .. (warning.fix and (' ' .. warning.fix) or '')
end

local function names(clients)
  local list = {}
  for _, client in ipairs(clients) do
    list[#list + 1] = tostring(client.name)
  end
  return list
end

--- A short text for a status line: '' when stopped.
function M.line(status)
  if status.state == 'running' then
    local connected = names(status.clients)
    return 'Tandem: ' .. (#connected > 0 and table.concat(connected, ', ') or 'no CLI')
  elseif status.state == 'starting' then
    return 'Tandem: starting'
  elseif status.state == 'failed' then
    return 'Tandem: failed'
  end
  return ''
end

--- Echoes what :TandemStatus shows.
function M.print(status)
  local s = status
  local lines = {
    { ('Tandem %s: %s'):format(s.version or '', s.state) .. (s.pid and (' (sidecar pid ' .. s.pid .. ')') or '') },
  }
  if s.error then
    lines[#lines + 1] = { 'Error: ' .. s.error, 'ErrorMsg' }
  end
  if s.command then
    lines[#lines + 1] = { 'Sidecar: ' .. table.concat(s.command, ' ') }
  end
  if s.port then
    lines[#lines + 1] = { 'Port: ' .. s.port }
  end
  lines[#lines + 1] = { 'Workspace: ' .. table.concat(s.workspace_folders, ', ') }
  local clients = vim.tbl_map(M.client_label, s.clients)
  lines[#lines + 1] = { 'Connected CLIs: ' .. (#clients > 0 and table.concat(clients, ', ') or 'none') }
  for _, warning in ipairs(s.warnings) do
    lines[#lines + 1] = { 'Warning: ' .. M.warning_text(warning), 'WarningMsg' }
  end
  lines[#lines + 1] = { 'Discovery files:' .. (#s.discovery_files > 0 and '' or ' none') }
  for _, file in ipairs(s.discovery_files) do
    lines[#lines + 1] = { '  ' .. file }
  end
  for _, diff in ipairs(s.diffs) do
    lines[#lines + 1] = { 'Open diff: ' .. diff.path }
  end
  lines[#lines + 1] = { 'Log: ' .. s.log_file }
  local chunks = {}
  for i, line in ipairs(lines) do
    chunks[#chunks + 1] = { line[1] .. (i < #lines and '\n' or ''), line[2] }
  end
  vim.api.nvim_echo(chunks, true, {})
end

return M
