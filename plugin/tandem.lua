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
  require('tandem').open_cli(args.fargs[1], vim.list_slice(args.fargs, 2))
end, {
  nargs = '+',
  desc = 'open a CLI in a terminal window',
  complete = function(lead, line)
    if line:match('^%s*%S+%s+%S*$') == nil then
      return {}
    end
    return vim.tbl_filter(function(name)
      return name:sub(1, #lead) == lead
    end, require('tandem').cli_names())
  end,
})
command('TandemStart', function()
  require('tandem').start()
end, { nargs = 0, desc = 'start the sidecar' })
command('TandemStop', function()
  require('tandem').stop()
end, { nargs = 0, desc = 'stop the sidecar' })
command('TandemStatus', function()
  require('tandem').print_status()
end, { nargs = 0, desc = 'show the connection' })
command('TandemAccept', function()
  require('tandem').accept()
end, { nargs = 0, desc = 'accept the proposal in this tab' })
command('TandemReject', function()
  require('tandem').reject()
end, { nargs = 0, desc = 'reject the proposal in this tab' })
command('TandemDoctor', function()
  require('tandem').doctor()
end, { nargs = 0, desc = 'show why a CLI does or does not connect' })
command('TandemEnv', function()
  require('tandem').show_env_line()
end, { nargs = 0, desc = 'show the line that connects a CLI in another terminal' })
