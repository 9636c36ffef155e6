-- The variables the sidecar gives for terminals, in Neovim's own environment: every terminal
-- opened from then on inherits them, so a CLI started there connects to this Neovim.
local TerminalEnv = {}
TerminalEnv.__index = TerminalEnv

function TerminalEnv.new()
  return setmetatable({ values = {} }, TerminalEnv)
end

--- Replaces the variables set before with `env` (name -> value).
function TerminalEnv:set(env)
  self:clear()
  for name, value in pairs(env) do
    vim.env[name] = tostring(value)
    self.values[name] = tostring(value)
  end
end

--- Removes every variable set here.
function TerminalEnv:clear()
  for name in pairs(self.values) do
    vim.env[name] = nil
  end
  self.values = {}
end

--- The variables set now (name -> value).
function TerminalEnv:get()
  return vim.deepcopy(self.values)
end

return TerminalEnv
