-- Tandem's commands. Nothing starts here: require('tandem').setup() does (see :help tandem).
if vim.g.loaded_tandem then
  return
end
vim.g.loaded_tandem = true

if vim.fn.has('nvim-0.7') ~= 1 then
  vim.notify('Tandem needs Neovim 0.7 or newer', vim.log.levels.ERROR)
  return
end

local function command(name, run, opts)
  opts.desc = 'Tandem: ' .. opts.desc
  vim.api.nvim_create_user_command(name, function(args)
    local ok, err = pcall(run, args)
    if not ok then
      vim.notify('Tandem: ' .. tostring(err), vim.log.levels.ERROR)
    end
  end, opts)
end

command('Tandem', function(args)
  if args.fargs[1] == 'send' then
    -- A range (or a Visual selection) sends those lines; none, the whole file.
    local ranged = args.range > 0
    require('tandem').send(ranged and args.line1 or nil, ranged and args.line2 or nil)
    return
  end
  require('tandem').open_cli(args.fargs[1], vim.list_slice(args.fargs, 2))
end, {
  nargs = '+',
  range = true,
  desc = 'open a CLI in a terminal window, or send the file or lines to Claude Code',
  complete = function(lead, line)
    if line:match('^%s*%S+%s+%S*$') == nil then
      return {}
    end
    return vim.tbl_filter(function(name)
      return name:sub(1, #lead) == lead
    end, vim.list_extend(require('tandem').cli_names(), { 'send' }))
  end,
})
-- The commands without arguments: each calls one function of the plugin.
for _, spec in ipairs({
  { 'TandemStart', 'start', 'start the sidecar' },
  { 'TandemStop', 'stop', 'stop the sidecar' },
  { 'TandemStatus', 'print_status', 'show the connection' },
  { 'TandemAccept', 'accept', 'accept the proposal in this tab' },
  { 'TandemReject', 'reject', 'reject the proposal in this tab' },
  { 'TandemDoctor', 'doctor', 'show why a CLI does or does not connect' },
  { 'TandemEnv', 'show_env_line', 'show the line that connects a CLI in another terminal' },
}) do
  local name, fn, desc = spec[1], spec[2], spec[3]
  command(name, function()
    require('tandem')[fn]()
  end, { nargs = 0, desc = desc })
end
