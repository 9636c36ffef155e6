-- Diff views. Each proposed edit opens in a tab of its own: the file on disk on one side, the
-- proposal (an editable scratch buffer) on the other. Every view ends with exactly one outcome,
-- whatever closes it: accepted, rejected, or closed by the CLI. An answer closes the view once
-- the engine took it; one it refused leaves the view open with the engine's reason.
local buffers = require('tandem.buffers')
local text = require('tandem.text')

local HAS_WINBAR = vim.fn.has('nvim-0.8') == 1

local Diffs = {}
Diffs.__index = Diffs

--- @param opts { config: table, log: table,
---   answer: fun(view: table, outcome: string, content: string|nil, done: fun(err: table|nil)) }
---   `answer` sends the user's answer: outcome 'accepted' (with the final text) or 'rejected';
---   `done(err)` follows once the engine took it (err nil) or refused it
---   (`err = { message, gone }`, `gone` when the diff is not open there any more).
function Diffs.new(opts)
  return setmetatable({
    config = opts.config,
    log = opts.log,
    answer = opts.answer,
    views = {}, -- id -> view
    closing = {}, -- id -> { name, filetype }: views the CLI closed, until the engine says why
    serial = 0,
  }, Diffs)
end

-- Gives `buf` the filetype a file at `path` would get.
local function set_filetype(buf, path, source)
  local filetype = source and vim.bo[source].filetype or ''
  if filetype == '' then
    local ok, match = pcall(vim.filetype.match, { filename = path, buf = buf })
    filetype = ok and match or ''
  end
  if filetype ~= '' then
    vim.bo[buf].filetype = filetype
  else
    -- Neovim 0.7: run the runtime's filetype detection for that file name in this buffer.
    -- Its fnameescape() leaves a new line, which would end the command and start another.
    local name = vim.fn.fnameescape((path:gsub('\n', ' ')))
    vim.api.nvim_buf_call(buf, function()
      vim.cmd('silent! doautocmd filetypedetect BufRead ' .. name)
    end)
  end
  return vim.bo[buf].filetype
end

-- `path` as `fnamemodify` gives it with `modifiers`, except that a name starting with ~ that is
-- not in the home folder (a folder named ~ in the workspace) gets ./ before it: read, or set as
-- a buffer's name, it would mean the home folder.
local function short_name(path, modifiers)
  local name = vim.fn.fnamemodify(path, modifiers)
  if name:sub(1, 1) == '~' and name ~= vim.fn.fnamemodify(path, ':~') then
    return './' .. name
  end
  return name
end

-- `name`, or `name (2)`, `name (3)`... when another buffer has it (two diffs of one file).
local function unique_name(name)
  local candidate, n = name, 1
  while vim.fn.bufexists(candidate) == 1 do
    n = n + 1
    candidate = ('%s (%d)'):format(name, n)
  end
  return candidate
end

local function scratch(name, lines, buftype)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = buftype
  vim.bo[buf].bufhidden = 'wipe'
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.api.nvim_buf_set_name(buf, name)
  vim.bo[buf].modified = false
  return buf
end

local function escape_bar(s)
  return (s:gsub('%%', '%%%%'))
end

-- Shows `label` above the window (0.8+) or in its status line (0.7).
local function set_label(win, label, warning)
  local bar = escape_bar(label)
  if warning then
    bar = bar .. ' · %#WarningMsg#' .. escape_bar(warning) .. '%*'
  end
  if HAS_WINBAR then
    vim.wo[win].winbar = bar
  else
    vim.wo[win].statusline = bar
  end
end

-- How to answer, short enough for half a screen: ':w or <leader>da'.
function Diffs:_gestures(action, command)
  local key = self.config.diff.keymaps[action]
  return key and (command .. ' or ' .. key) or command
end

-- Maps the accept and reject keys in one of the view's buffers.
function Diffs:_map(buf, view)
  local keymaps = self.config.diff.keymaps
  if keymaps.accept then
    vim.keymap.set('n', keymaps.accept, function()
      self:accept(view.id)
    end, { buffer = buf, nowait = true, desc = 'Tandem: accept the proposal' })
  end
  if keymaps.reject then
    vim.keymap.set('n', keymaps.reject, function()
      self:reject(view.id)
    end, { buffer = buf, nowait = true, desc = 'Tandem: reject the proposal' })
  end
end

-- Any way a side of the view goes away (:q, :close, :tabclose, :bwipeout, :e other in it...)
-- is a rejection, unless the view already has its outcome.
function Diffs:_watch(view)
  local group = view.group
  local function closed()
    self:_closed(view)
  end
  vim.api.nvim_create_autocmd('BufWriteCmd', {
    group = group,
    buffer = view.right_buf,
    callback = function(args)
      -- `:w` names the buffer as Neovim shows it; compared whole, that name could expand
      -- elsewhere (a folder named ~).
      local target = vim.fn.fnamemodify(args.file, ':p')
      if
        args.file ~= vim.fn.bufname(view.right_buf)
        and target ~= vim.fn.fnamemodify(vim.api.nvim_buf_get_name(view.right_buf), ':p')
      then
        self.log:error('this buffer is a proposal: :w accepts it, it cannot be written elsewhere')
        return
      end
      -- 'modified' stays set, so `:wq` keeps the window: it closes with the view once the
      -- engine took the answer, and stays, with the engine's reason, if it refused.
      self:accept(view.id)
    end,
  })
  for _, buf in ipairs({ view.left_buf, view.right_buf }) do
    vim.api.nvim_create_autocmd('BufWipeout', { group = group, buffer = buf, callback = closed })
  end
  for _, win in ipairs({ view.left_win, view.right_win }) do
    vim.api.nvim_create_autocmd('WinClosed', { group = group, pattern = tostring(win), callback = closed })
  end
  vim.api.nvim_create_autocmd('TabClosed', {
    group = group,
    callback = function()
      if not vim.api.nvim_tabpage_is_valid(view.tab) then
        closed()
      end
    end,
  })
end

--- Shows a diff. Raises an error (the reply to the CLI) when it cannot.
--- @param request { id: string, path: string, old: string|nil, new: string, client: table|nil }
---   `old` is nil for a file that does not exist yet.
function Diffs:open(request)
  local id, path, old, new = request.id, request.path, request.old, request.new
  if self.views[id] then
    error('a diff with id ' .. id .. ' is already open', 0)
  end
  self.serial = self.serial + 1
  local name = short_name(path, ':~:.')
  local source = buffers.for_file(path)
  local new_lines, shape = text.to_lines(new)
  local view = {
    id = id,
    path = path,
    proposed = new,
    shape = shape,
    origin_tab = vim.api.nvim_get_current_tabpage(),
    origin_win = vim.api.nvim_get_current_win(),
    -- The user is often typing in the CLI's terminal when a diff arrives: they return there.
    resume_terminal = vim.api.nvim_get_mode().mode == 't',
    group = vim.api.nvim_create_augroup('TandemDiff' .. self.serial, { clear = true }),
    answering = nil, -- the outcome sent, until the engine replies
    closed = false, -- the user closed a side of the view
    done = false,
  }
  local client = request.client and tostring(request.client.name) or 'Proposal'
  local ok, err = pcall(function()
    -- Named after the file and the side, relative to the current folder, as a tab's label
    -- shows them: "src/stats.js (Gemini CLI)".
    local relative = short_name(path, ':.')
    view.relative_name = relative
    view.left_buf = scratch(
      unique_name(('%s (%s)'):format(relative, old and 'on disk' or 'new file')),
      old and (text.to_lines(old)) or {},
      'nofile'
    )
    vim.bo[view.left_buf].modifiable = false
    view.right_buf = scratch(unique_name(('%s (%s)'):format(relative, client)), new_lines, 'acwrite')

    if view.resume_terminal then
      vim.cmd('stopinsert')
    end
    vim.cmd('tab sbuffer ' .. view.left_buf)
    view.tab = vim.api.nvim_get_current_tabpage()
    view.left_win = vim.api.nvim_get_current_win()
    local split = self.config.diff.layout == 'vertical' and 'vertical rightbelow' or 'rightbelow'
    vim.cmd(split .. ' sbuffer ' .. view.right_buf)
    view.right_win = vim.api.nvim_get_current_win()

    local filetype = set_filetype(view.right_buf, path, source)
    if filetype ~= '' then
      vim.bo[view.left_buf].filetype = filetype
    end
    for _, win in ipairs({ view.left_win, view.right_win }) do
      vim.api.nvim_win_call(win, function()
        vim.cmd('diffthis')
      end)
    end

    local warning
    if source and vim.bo[source].modified then
      -- Short enough for the label of half a screen; the message says it all.
      warning = 'your unsaved edits are not shown'
      self.log:warn(
        name .. ' has unsaved changes in Neovim: the diff shows the file on disk; your changes stay in their buffer'
      )
    end
    set_label(view.left_win, (old and 'On disk: ' or 'New file: ') .. name, warning)
    set_label(
      view.right_win,
      ('%s · accept: %s · reject: %s'):format(
        client,
        self:_gestures('accept', ':w'),
        self:_gestures('reject', ':q')
      )
    )
    self:_map(view.left_buf, view)
    self:_map(view.right_buf, view)
    self:_watch(view)
  end)
  if not ok then
    view.done = true
    self:_teardown(view)
    error('cannot show the diff: ' .. tostring(err), 0)
  end
  self.views[id] = view
  self.log:debug('showing diff ' .. id .. ' for ' .. path)
end

-- The view has its outcome: it closes.
function Diffs:_finish(view)
  if view.done then
    return
  end
  view.done = true
  self.views[view.id] = nil
  -- Windows cannot close inside the autocommands that report them closing.
  vim.schedule(function()
    self:_teardown(view)
  end)
end

-- Sends the user's answer; the view closes once the engine took it. A refused answer leaves
-- the view open with the engine's reason, unless the user closed it meanwhile: then it is
-- rejected.
function Diffs:_answer(view, outcome, content)
  if view.done or view.answering then
    return
  end
  view.answering = outcome
  self.answer(view, outcome, content, function(err)
    view.answering = nil
    if not err or err.gone then
      self.log:info(('%s the proposal for %s'):format(outcome, view.path))
      return self:_finish(view)
    end
    self.log:error(err.message)
    if view.closed then
      if outcome == 'rejected' then
        self:_finish(view)
      else
        self:_answer(view, 'rejected')
      end
    end
  end)
end

-- A side of the view went away: a rejection, unless an answer is on its way.
function Diffs:_closed(view)
  if view.done or view.closed then
    return
  end
  view.closed = true
  if not view.answering then
    self:_answer(view, 'rejected')
  end
end

-- The proposal's text, as :w would write it: an emptied buffer ("--No lines in buffer--") is
-- the empty text, whatever the final newline of the proposal was.
function Diffs:_proposal(view)
  local lines = vim.api.nvim_buf_get_lines(view.right_buf, 0, -1, false)
  if #lines == 1 and lines[1] == '' then
    local empty = vim.api.nvim_buf_call(view.right_buf, function()
      return vim.fn.wordcount().bytes == 0
    end)
    if empty then
      return ''
    end
  end
  return text.from_lines(lines, view.shape)
end

function Diffs:_teardown(view)
  pcall(vim.api.nvim_del_augroup_by_id, view.group)
  self:_close_windows(view)
  -- Neovim 0.7 in Terminal mode keeps the tab line of a closed tab page on screen (and its
  -- row) until the tab pages change again: setting 'showtabline' lays the screen out anew.
  if vim.api.nvim_get_mode().mode == 't' then
    vim.o.showtabline = vim.o.showtabline
  end
end

-- Closes the windows and buffers of the view; a user who was in one of them returns where
-- they were.
function Diffs:_close_windows(view)
  local current = vim.api.nvim_get_current_win()
  local was_current = current == view.left_win or current == view.right_win
  for _, win in ipairs({ view.right_win, view.left_win }) do
    if win and vim.api.nvim_win_is_valid(win) and not pcall(vim.api.nvim_win_close, win, true) then
      -- The last window of Neovim cannot close: give it an empty buffer instead.
      pcall(vim.api.nvim_win_call, win, function()
        vim.cmd('diffoff')
      end)
      pcall(vim.api.nvim_win_set_buf, win, vim.api.nvim_create_buf(true, false))
    end
  end
  for _, buf in ipairs({ view.right_buf, view.left_buf }) do
    if buf and vim.api.nvim_buf_is_valid(buf) then
      pcall(vim.api.nvim_buf_delete, buf, { force = true })
    end
  end
  if not was_current or not vim.api.nvim_tabpage_is_valid(view.origin_tab) then
    return
  end
  vim.api.nvim_set_current_tabpage(view.origin_tab)
  local win = view.origin_win
  if view.resume_terminal and vim.api.nvim_get_current_win() == win then
    if vim.bo[vim.api.nvim_win_get_buf(win)].buftype == 'terminal' then
      vim.cmd('startinsert')
    end
  end
end

--- The view `id` names; without an id, the view in the current tab, or the only one open.
function Diffs:find(id)
  if id ~= nil then
    return self.views[id]
  end
  local tab = vim.api.nvim_get_current_tabpage()
  local only, count = nil, 0
  for _, view in pairs(self.views) do
    if view.tab == tab then
      return view
    end
    only, count = view, count + 1
  end
  return count == 1 and only or nil
end

local function require_view(self, id)
  local view = self:find(id)
  if not view then
    error('no Tandem diff here: run this in a diff tab', 0)
  end
  return view
end

--- Accepts the proposal with the user's edits.
function Diffs:accept(id)
  local view = require_view(self, id)
  self:_answer(view, 'accepted', self:_proposal(view))
end

function Diffs:reject(id)
  self:_answer(require_view(self, id), 'rejected')
end

-- Keeps `content` in a listed scratch buffer named after `name`, for the user to copy from;
-- returns it.
local function keep(name, filetype, content)
  local buf = vim.api.nvim_create_buf(true, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, (text.to_lines(content)))
  vim.api.nvim_buf_set_name(buf, unique_name(name .. ' (your edits)'))
  vim.bo[buf].filetype = filetype
  return buf
end

--- Closes a view on the CLI's request, without an outcome; returns the proposal's text and
--- the view. What the user is told follows in `closed`.
function Diffs:close(id)
  local view = self.views[id]
  if not view then
    error('no open diff with id ' .. tostring(id), 0)
  end
  local content = self:_proposal(view)
  self.closing[id] = { name = view.relative_name, filetype = vim.bo[view.right_buf].filetype }
  self:_finish(view)
  return content, view
end

--- What the engine says of a view the CLI closed (see bridge.lua): the message goes to the
--- log; edits that reach no file are kept in a buffer of their own, and the user is told where
--- in one short line (a longer one would stop Neovim at a hit-enter prompt, in the middle of
--- typing in the CLI).
function Diffs:closed(notice)
  local view = self.closing[notice.id]
    or { name = short_name(notice.path, ':~:.'), filetype = '' }
  self.closing[notice.id] = nil
  self.log:info(notice.message)
  if notice.kept_text then
    local buf = keep(view.name, view.filetype, notice.kept_text)
    self.log:warn(('your edits to %s were not written: :buffer %d'):format(view.name, buf))
  end
end

--- Closes every view without an answer: the sidecar rejects the diffs it still has open when
--- it stops. With `keep_windows` (Neovim is quitting) the windows are left alone.
function Diffs:close_all(opts)
  for _, view in pairs(self.views) do
    view.done = true
    if not opts.keep_windows then
      self:_teardown(view)
    end
  end
  self.views = {}
end

function Diffs:list()
  local list = {}
  for _, view in pairs(self.views) do
    list[#list + 1] = view
  end
  table.sort(list, function(a, b)
    return tostring(a.id) < tostring(b.id)
  end)
  return list
end

return Diffs
