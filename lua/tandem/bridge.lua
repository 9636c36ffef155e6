-- The bridge protocol (docs/bridge-protocol.md), spoken with the sidecar. The only module that
-- knows its method names and the shape of their params: the rest of the plugin calls methods
-- here and is called back with plain values.
local Rpc = require('tandem.rpc')

local Bridge = {}
Bridge.__index = Bridge

-- The version this plugin speaks: the one of the sidecar it ships with.
local PROTOCOL = { min = '1.3', max = '1.3' }
-- The error code of an answer for a diff that is not open any more (answered or closed).
local DIFF_NOT_OPEN = -32011
-- Added to the sidecar's environment unless the user sets it: glibc then maps each large buffer
-- on its own and gives it back once freed (docs/bridge-protocol.md, "Framing").
local ALLOCATOR = 'glibc.malloc.mmap_threshold=65536'

-- What the sidecar's environment adds to Neovim's. NODE_EXTRA_CA_CERTS is emptied: Node would
-- read and parse those certificates as it starts, and the sidecar makes no TLS connection.
local function sidecar_env()
  return { NODE_EXTRA_CA_CERTS = '', GLIBC_TUNABLES = vim.env.GLIBC_TUNABLES or ALLOCATOR }
end

local function table_or_empty(value)
  return type(value) == 'table' and value or {}
end

local function string_or_nil(value)
  return type(value) == 'string' and value or nil
end

-- What the user must know before a CLI silently does not do what they expect (the engine's
-- warnings): `{ code, cli?, message, fix? }` each.
local function warnings_of(list)
  local warnings = {}
  for _, warning in ipairs(table_or_empty(list)) do
    if type(warning) == 'table' and type(warning.message) == 'string' then
      warnings[#warnings + 1] = {
        code = tostring(warning.code),
        cli = string_or_nil(warning.cli),
        message = warning.message,
        fix = string_or_nil(warning.fix),
      }
    end
  end
  return warnings
end

--- Starts the sidecar `cmd`.
--- @param editor { show_diff: fun(diff: { id: string, path: string, old: string|nil, new: string, client: table|nil }),
---   close_diff: fun(id: string): string, clients_changed: fun(clients: table[]),
---   warnings_changed: fun(warnings: table[]), env_changed: fun(env: table),
---   diff_outcome: fun(outcome: { id: string|number, path: string, kind: string, message: string }),
---   log: fun(line: string), exited: fun(code: integer) }
---   diff_closed: fun(notice: { id: string|number, path: string, message: string, kept_text: string|nil }),
---   `show_diff` and `close_diff` raise an error (the reply the sidecar gets) when they cannot.
---   `diff_closed` follows `close_diff` with the engine's words on why the CLI closed the diff,
---   and `kept_text`, the user's edits, when those reach no file: to keep where they can take
---   them. `diff_outcome` says, seconds after a close with reason `terminal`, whether the CLI
---   wrote the file.
--- @return table|nil bridge, string|nil error
function Bridge.start(cmd, editor)
  -- The last selected text sent, and its JSON.
  local self = setmetatable({ editor = editor, selection_sent = { '', '""' } }, Bridge)
  local rpc, err = Rpc.start(cmd, {
    request = function(method, params)
      return self:_request(method, params)
    end,
    notification = function(method, params)
      self:_notification(method, params)
    end,
    stderr = editor.log,
    exit = editor.exited,
  }, sidecar_env())
  if not rpc then
    return nil, err
  end
  self.rpc = rpc
  return self
end

function Bridge:_request(method, params)
  if type(params) ~= 'table' then
    error('params must be an object', 0)
  end
  if method == 'diff/open' then
    local id, path, new = params.id, params.filePath, params.newContent
    if (type(id) ~= 'string' and type(id) ~= 'number') or type(path) ~= 'string' or type(new) ~= 'string' then
      error('diff/open needs an id, a filePath and a newContent string', 0)
    end
    local old = params.oldContent
    self.editor.show_diff({
      id = id,
      path = path,
      old = type(old) == 'string' and old or nil,
      new = new,
      client = type(params.client) == 'table' and params.client or nil,
    })
    return vim.empty_dict()
  elseif method == 'diff/close' then
    return { content = self.editor.close_diff(params.id) }
  end
  return nil
end

function Bridge:_notification(method, params)
  params = table_or_empty(params)
  if method == 'env/changed' then
    self.editor.env_changed(table_or_empty(params.env))
  elseif method == 'status' then
    self.editor.clients_changed(table_or_empty(params.clients))
  elseif method == 'warnings' then
    self.editor.warnings_changed(warnings_of(params.warnings))
  elseif method == 'diff/closed' and type(params.message) == 'string' then
    self.editor.diff_closed({
      id = params.id,
      path = string_or_nil(params.filePath) or '',
      message = params.message,
      kept_text = string_or_nil(params.keptText),
    })
  elseif method == 'diff/outcome' and type(params.message) == 'string' then
    self.editor.diff_outcome({
      id = params.id,
      path = string_or_nil(params.filePath),
      kind = tostring(params.kind),
      message = params.message,
    })
  end
end

--- The process id of the sidecar, or nil once it ended.
function Bridge:pid()
  return self.rpc:pid()
end

--- `callback(err, session)`: `session` is `{ port, env, discovery_files, warnings,
--- selection_limit }` (how many characters of a selection the CLIs keep), `err` a message.
--- @param editor { name: string, display_name: string, version: string, pid: integer, folders: string[] }
function Bridge:initialize(editor, callback)
  self.rpc:request('initialize', {
    protocol = PROTOCOL,
    editor = { name = editor.name, displayName = editor.display_name, version = editor.version, pid = editor.pid },
    workspaceFolders = editor.folders,
  }, function(err, result)
    if err or type(result) ~= 'table' or type(result.port) ~= 'number' then
      return callback(err and err.message or 'unexpected reply to initialize')
    end
    callback(nil, {
      port = result.port,
      env = table_or_empty(result.env),
      discovery_files = table_or_empty(result.discoveryFiles),
      warnings = warnings_of(result.warnings),
      selection_limit = type(result.limits) == 'table' and tonumber(result.limits.selectedText) or nil,
    })
  end)
end

function Bridge:workspace_changed(folders)
  self.rpc:notify('workspace/changed', { workspaceFolders = folders })
end

-- Bridge:file_opened(path), Bridge:file_closed(path), Bridge:file_focused(path).
for name, method in pairs({
  file_opened = 'file/opened',
  file_closed = 'file/closed',
  file_focused = 'file/focused',
}) do
  Bridge[name] = function(self, path)
    self.rpc:notify(method, { path = path })
  end
end

--- `character` counts Unicode code points, 1-based; `selected_text` only with a selection, and
--- with it `anchor`, `{ line, character }`: where the selection began.
function Bridge:cursor_changed(path, line, character, selected_text, anchor)
  local params = { path = path, line = line, character = character, anchor = anchor }
  if selected_text == nil then
    self.rpc:notify('cursor/changed', params)
    return
  end
  -- A selection that changes past the limit keeps its text, up to 16 KB: encoded once.
  if selected_text ~= self.selection_sent[1] then
    self.selection_sent = { selected_text, vim.json.encode(selected_text) }
  end
  local json = vim.json.encode(params)
  self.rpc:notify_encoded('cursor/changed', json:sub(1, -2) .. ',"selectedText":' .. self.selection_sent[2] .. '}')
end

-- Sends a diff's answer; `callback(err)` once it was taken (err nil) or refused:
-- `err = { message, gone }`, `gone` when the diff is not open any more.
function Bridge:_answer(method, params, callback)
  self.rpc:request(method, params, function(err)
    callback(err and { message = err.message, gone = err.code == DIFF_NOT_OPEN } or nil)
  end)
end

--- The user accepted diff `id` with `content` (the whole text, their edits included).
function Bridge:accept_diff(id, content, callback)
  self:_answer('diff/accepted', { id = id, content = content }, callback)
end

--- The user rejected diff `id`, or closed its view.
function Bridge:reject_diff(id, callback)
  self:_answer('diff/rejected', { id = id }, callback)
end

--- Sends the file at `path`, or its lines `first`..`last` (1-based), to the CLIs' prompts (Claude
--- Code shows `@file#L2-3`). `callback(err, answer)`: `answer = { ok, message }`, `err` a message.
function Bridge:mention(path, first, last, callback)
  local params = { path = path }
  if first then
    params.lines = { start = first, ['end'] = last }
  end
  self.rpc:request('mention', params, function(err, result)
    if err or type(result) ~= 'table' or type(result.message) ~= 'string' then
      return callback(err and err.message or 'unexpected reply to mention')
    end
    callback(nil, { ok = result.ok == true, message = result.message })
  end)
end

--- Ends the sidecar within about `timeout` ms: `shutdown` (it rejects every open diff and
--- removes its discovery files), then the end of its stdin, and it exits. One that does not
--- is sent SIGTERM (which does the same), and killed if deaf to that too: Neovim never waits
--- on it for long.
function Bridge:stop(timeout)
  local replied = false
  self.rpc:request('shutdown', vim.empty_dict(), function()
    replied = true
  end)
  vim.wait(math.floor(timeout * 0.5), function()
    return replied
  end, 5)
  self.rpc:close_stdin()
  if self.rpc:wait(math.floor(timeout * 0.3)) then
    return
  end
  self.rpc:kill('sigterm')
  if not self.rpc:wait(math.floor(timeout * 0.2)) then
    self.rpc:kill('sigkill')
  end
end

return Bridge
