-- :Tandem {cli}: a CLI in a terminal window. It inherits Neovim's environment, which holds
-- what the sidecar told it, so the CLI connects to this Neovim. The jobs started here end
-- with Neovim: a CLI that ignores the hang-up of its terminal must not outlive it.
local Terminals = {}
Terminals.__index = Terminals

local HAS_JOBSTART_TERM = vim.fn.has('nvim-0.11') == 1
local uv = vim.uv or vim.loop

function Terminals.new()
  return setmetatable({ jobs = {} }, Terminals) -- job id -> process group (the job's pid)
end

--- The names of the CLIs :Tandem knows, sorted.
function Terminals.names(config)
  local names = vim.tbl_keys(config.terminal.clis)
  table.sort(names)
  return names
end

--- Opens CLI `name` with extra `args` in a new window made by `config.terminal.split`.
function Terminals:open(config, name, args)
  local cmd = config.terminal.clis[name]
  if not cmd then
    error(
      ('unknown CLI "%s": :Tandem takes one of %s'):format(tostring(name), table.concat(Terminals.names(config), ', ')),
      0
    )
  end
  local argv = vim.list_extend(vim.deepcopy(cmd), args or {})
  if vim.fn.executable(argv[1]) ~= 1 then
    error(('`%s` is not installed or not on PATH'):format(argv[1]), 0)
  end
  vim.cmd(config.terminal.split)
  vim.api.nvim_win_set_buf(0, vim.api.nvim_create_buf(true, false))
  local opts = {
    on_exit = function(job)
      -- A process that ignored the hang-up may outlive the job: its group is kept to stop.
      if self.jobs[job] and uv.kill(-self.jobs[job], 0) ~= 0 then
        self.jobs[job] = nil
      end
    end,
  }
  local job
  if HAS_JOBSTART_TERM then
    opts.term = true
    job = vim.fn.jobstart(argv, opts)
  else
    job = vim.fn.termopen(argv, opts)
  end
  if job > 0 then
    -- A terminal job leads its own session, so its pid names its process group.
    self.jobs[job] = vim.fn.jobpid(job)
  end
  vim.cmd('startinsert')
end

-- The process groups of the jobs that still have a process.
function Terminals:_alive()
  local groups = {}
  for _, group in pairs(self.jobs) do
    if uv.kill(-group, 0) == 0 then
      groups[#groups + 1] = group
    end
  end
  return groups
end

function Terminals:_wait(timeout)
  return vim.wait(timeout, function()
    return #self:_alive() == 0
  end, 20)
end

--- Hangs up the terminal of every job started here, without waiting.
function Terminals:hang_up()
  for job in pairs(self.jobs) do
    pcall(vim.fn.jobstop, job)
  end
end

--- Stops every job started here, waiting at most about `timeout` ms: hangs up its terminal
--- (again, if `hang_up` came first), then sends SIGTERM, and at last SIGKILL, to the process
--- groups still alive.
function Terminals:stop_all(timeout)
  self:hang_up()
  for _, signal in ipairs({ 'sigterm', 'sigkill' }) do
    if self:_wait(timeout / 3) then
      break
    end
    for _, group in ipairs(self:_alive()) do
      uv.kill(-group, signal)
    end
  end
  self:_wait(timeout / 3)
  self.jobs = {}
end

return Terminals
