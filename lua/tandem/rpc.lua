-- JSON-RPC 2.0 with a child process, one message per line on its stdin and stdout.
local Rpc = {}
Rpc.__index = Rpc

local SERVER_ERROR = -32000
local METHOD_NOT_FOUND = -32601
-- Every message names the version; a notification whose params are JSON already starts so.
local VERSION = '2.0'
local NOTIFICATION_START = '{"jsonrpc":' .. vim.json.encode(VERSION) .. ',"method":'

--- Starts `cmd`, with `env` added to Neovim's environment, and talks to it.
--- @param cmd string[]
--- @param handlers { request: fun(method, params): any, notification: fun(method, params),
---   stderr: fun(line: string), exit: fun(code: integer) }
---   `request` returns the result or raises an error, which becomes the error reply.
--- @param env table<string, string>|nil
--- @return table|nil rpc, string|nil error
function Rpc.start(cmd, handlers, env)
  local self = setmetatable({
    handlers = handlers,
    pending = {},
    next_id = 1,
    stdout_rest = '',
    stderr_rest = '',
    job = nil,
    running = false,
  }, Rpc)
  local ok, job = pcall(vim.fn.jobstart, cmd, {
    env = env,
    on_stdout = function(_, data)
      self.stdout_rest = self:_lines(self.stdout_rest, data, function(line)
        self:_receive(line)
      end)
    end,
    on_stderr = function(_, data)
      self.stderr_rest = self:_lines(self.stderr_rest, data, handlers.stderr)
    end,
    on_exit = function(_, code)
      self:_exited(code)
    end,
  })
  if not ok then
    return nil, tostring(job)
  end
  if job <= 0 then
    return nil, 'cannot run ' .. table.concat(cmd, ' ')
  end
  self.job = job
  self.running = true
  return self
end

-- Job output arrives in chunks: `data[1]` continues the previous partial line and the last
-- item is the start of the next one.
function Rpc:_lines(rest, data, each)
  data[1] = rest .. data[1]
  local tail = table.remove(data)
  for _, line in ipairs(data) do
    if line ~= '' then
      each(line)
    end
  end
  return tail
end

function Rpc:pid()
  return self.running and vim.fn.jobpid(self.job) or nil
end

function Rpc:_send(message)
  message.jsonrpc = VERSION
  return self:_write(vim.json.encode(message) .. '\n')
end

-- Writes `line`, one message and its line break.
function Rpc:_write(line)
  if not self.running then
    return false
  end
  return vim.fn.chansend(self.job, line) > 0
end

--- Sends a request; `callback(err, result)` runs once, with the reply or the reason none came.
--- `err` is `{ code?: integer, message: string }`.
function Rpc:request(method, params, callback)
  local id = self.next_id
  self.next_id = id + 1
  self.pending[id] = callback
  if not self:_send({ id = id, method = method, params = params }) then
    self.pending[id] = nil
    callback({ message = 'the sidecar is not running' })
  end
end

function Rpc:notify(method, params)
  self:_send({ method = method, params = params })
end

--- Sends a notification whose params are JSON already.
function Rpc:notify_encoded(method, params_json)
  self:_write(NOTIFICATION_START .. vim.json.encode(method) .. ',"params":' .. params_json .. '}\n')
end

function Rpc:_reply(id, result, err)
  if err ~= nil then
    self:_send({ id = id, error = { code = err.code or SERVER_ERROR, message = err.message } })
  else
    self:_send({ id = id, result = result })
  end
end

function Rpc:_receive(line)
  local ok, message = pcall(vim.json.decode, line)
  if not ok or type(message) ~= 'table' then
    self.handlers.stderr('unreadable message from the sidecar: ' .. line:sub(1, 200))
    return
  end
  local method, id = message.method, message.id
  if type(method) == 'string' and id ~= nil and id ~= vim.NIL then
    self:_answer(id, method, message.params)
  elseif type(method) == 'string' then
    self.handlers.notification(method, message.params)
  elseif id ~= nil and self.pending[id] then
    local callback = self.pending[id]
    self.pending[id] = nil
    local err = message.error
    if err ~= nil and err ~= vim.NIL then
      callback(type(err) == 'table' and { code = err.code, message = tostring(err.message) } or { message = tostring(err) })
    else
      callback(nil, message.result)
    end
  end
end

function Rpc:_answer(id, method, params)
  local ok, result = pcall(self.handlers.request, method, params)
  if not ok then
    self:_reply(id, nil, { message = tostring(result) })
  elseif result == nil then
    self:_reply(id, nil, { code = METHOD_NOT_FOUND, message = 'unknown method ' .. method })
  else
    self:_reply(id, result)
  end
end

function Rpc:_exited(code)
  self.running = false
  local pending = self.pending
  self.pending = {}
  for _, callback in pairs(pending) do
    callback({ message = 'the sidecar exited' })
  end
  self.handlers.exit(code)
end

--- Closes the sidecar's stdin (it then cleans up and exits).
function Rpc:close_stdin()
  if self.running then
    pcall(vim.fn.chanclose, self.job, 'stdin')
  end
end

--- Waits up to `timeout` ms for the process to exit; true once it has.
function Rpc:wait(timeout)
  return not self.running or vim.fn.jobwait({ self.job }, timeout)[1] ~= -1
end

--- Sends the process `signal` ('sigterm', 'sigkill').
function Rpc:kill(signal)
  local pid = self:pid()
  if pid then
    (vim.uv or vim.loop).kill(pid, signal)
  end
end

return Rpc
