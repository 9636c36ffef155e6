" Tandem for Vim: the IDE companion of Gemini CLI and Qwen Code. These functions are the public
" API (see :help tandem-vim-api); one App per Vim holds the state: the sidecar process, what
" the editor tells it, and the diff views it asks for.

let s:PROTOCOL = {'min': '1.0', 'max': '1.2'}
let s:START_TIMEOUT = 10000
" Quitting Vim waits at most this long for the sidecar to clean up.
let s:SHUTDOWN_TIMEOUT = 1000
let s:ROOT = expand('<sfile>:p:h:h')

let s:App = {}

" The plugin's root: the repository that holds plugin/, autoload/ and packages/.
function! tandem#root() abort
  return s:ROOT
endfunction

" The built sidecar script that the default command runs.
function! tandem#sidecar_script() abort
  return s:ROOT . '/packages/cli/dist/tandem.js'
endfunction

function! s:app() abort
  if !exists('s:app')
    let s:app = s:new_app(tandem#config#resolve())
  endif
  return s:app
endfunction

function! s:new_app(config) abort
  let app = extend(copy(s:App), {'config': a:config, 'state': 'stopped', 'error': v:null,
        \ 'rpc': v:null, 'port': v:null, 'env': {}, 'discovery_files': [], 'clients': [],
        \ 'warnings': [], 'answer_replies': 0})
  let app.log = tandem#log#new(a:config.log_file, a:config.log_level)
  let app.reload = tandem#reload#new(app.log)
  let app.context = tandem#context#new({method, params -> app.notify(method, params)})
  let app.diffs = tandem#diff#new({'config': a:config, 'log': app.log,
        \ 'answer': {view, outcome, content, Done -> app.answer(view, outcome, content, Done)}})
  return app
endfunction

function! s:text(value) abort
  return type(a:value) == v:t_string ? a:value : string(a:value)
endfunction

function! s:App.command() abort
  return self.config.cmd isnot v:null ? self.config.cmd
        \ : [self.config.node, tandem#sidecar_script(), 'bridge']
endfunction

function! s:App.changed() abort
  redrawstatus!
  if exists('#User#TandemStatusChanged')
    doautocmd <nomodeline> User TandemStatusChanged
  endif
endfunction

function! s:App.fail(message) abort
  let self.state = 'failed'
  let self.error = a:message
  call self.log.error(a:message)
  call self.changed()
endfunction

" Starts the sidecar (nothing happens when it runs or is starting).
function! s:App.start() abort
  if self.state ==# 'starting' || self.state ==# 'running'
    return
  endif
  let cmd = self.command()
  if self.config.cmd is v:null && !filereadable(cmd[1])
    return self.fail(printf('the sidecar is not built: run `npm run build:sidecar` in %s'
          \ . ' (see :help tandem-vim-install)', s:ROOT))
  endif
  if !executable(cmd[0])
    return self.fail(printf('cannot start the sidecar: `%s` is not an executable', cmd[0]))
  endif
  let self.state = 'starting'
  let self.error = v:null
  let app = self
  let rpc = {}
  try
    let rpc = tandem#rpc#start(cmd, {
          \ 'request': {method, params -> app.request(method, params)},
          \ 'notification': {method, params -> app.notification(method, params)},
          \ 'stderr': {line -> app.log.debug('sidecar: ' . line)},
          \ 'exit': {code -> app.exited(rpc, code)},
          \ })
  catch
    return self.fail('cannot start the sidecar: ' . v:exception)
  endtry
  let self.rpc = rpc
  augroup TandemApp
    autocmd!
    autocmd VimLeavePre * call tandem#_leaving()
  augroup END
  call self.changed()
  let editor_version = printf('%d.%d.%d', v:version / 100, v:version % 100, v:versionlong % 10000)
  call rpc.request('initialize', {
        \ 'protocol': s:PROTOCOL,
        \ 'editor': {'name': 'vim', 'displayName': 'Vim', 'version': editor_version, 'pid': getpid()},
        \ 'workspaceFolders': tandem#context#workspace_folders(),
        \ }, {error, result -> app.initialized(rpc, error, result)})
endfunction

function! s:App.initialized(rpc, error, result) abort
  if a:rpc isnot self.rpc
    return
  endif
  if a:error isnot v:null || type(a:result) != v:t_dict || type(get(a:result, 'port')) != v:t_number
    call self.fail('the sidecar did not start: '
          \ . (a:error isnot v:null ? get(a:error, 'message', '') : 'unexpected reply to initialize'))
    call a:rpc.close_stdin()
    return
  endif
  let self.state = 'running'
  let self.port = a:result.port
  let self.discovery_files = type(get(a:result, 'discoveryFiles')) == v:t_list ? a:result.discoveryFiles : []
  let capabilities = get(a:result, 'capabilities', {})
  let self.answer_replies = type(capabilities) == v:t_dict && get(capabilities, 'diffAnswerReplies', v:false) is v:true
  call self.set_env(get(a:result, 'env', {}))
  call self.context.attach()
  call self.log.info(printf('listening on port %d', self.port))
  " Last: it reports the change of state too.
  call self.set_warnings(get(a:result, 'warnings', []))
endfunction

" The engine's warnings for people (`{code, cli?, message, fix?}` each), which replace the
" last ones. A new list is announced in one short line: :TandemStatus shows it whole.
function! s:App.set_warnings(list) abort
  let warnings = []
  for warning in type(a:list) == v:t_list ? a:list : []
    if type(warning) == v:t_dict && type(get(warning, 'message')) == v:t_string
      let fix = get(warning, 'fix', v:null)
      call add(warnings, {'code': s:text(get(warning, 'code', '?')), 'message': warning.message,
            \ 'fix': type(fix) == v:t_string ? fix : v:null})
      call self.log.write('info', printf('warning (%s): %s', warnings[-1].code, s:warning_text(warnings[-1])))
    endif
  endfor
  if warnings != self.warnings && !empty(warnings)
    call self.log.tell('warn', printf('%d %s (%s): see :TandemStatus', len(warnings),
          \ len(warnings) == 1 ? 'warning' : 'warnings', join(map(copy(warnings), 'v:val.code'), ', ')))
  endif
  let self.warnings = warnings
  call self.changed()
endfunction

function! s:App.notify(method, params) abort
  if self.state ==# 'running'
    call self.rpc.notify(a:method, a:params)
  endif
endfunction

function! s:App.request(method, params) abort
  if type(a:params) != v:t_dict
    throw 'params must be an object'
  endif
  if a:method ==# 'diff/open'
    call self.diffs.open(a:params)
    return {}
  elseif a:method ==# 'diff/close'
    let [content, view] = self.diffs.close(get(a:params, 'id', v:null), a:params)
    " Approved in the terminal: the CLI writes the file now.
    call self.reload.after_write(view.path)
    return {'content': content}
  endif
  return v:null
endfunction

" Every terminal opened from now on inherits these, so a CLI started there connects here.
function! s:App.set_env(env) abort
  call self.clear_env()
  for [name, value] in items(type(a:env) == v:t_dict ? a:env : {})
    let value = s:text(value)
    call setenv(name, value)
    let self.env[name] = value
  endfor
endfunction

function! s:App.clear_env() abort
  for name in keys(self.env)
    call setenv(name, v:null)
  endfor
  let self.env = {}
endfunction

function! s:App.notification(method, params) abort
  if type(a:params) != v:t_dict
    return
  endif
  if a:method ==# 'env/changed'
    call self.set_env(get(a:params, 'env', {}))
  elseif a:method ==# 'status'
    let clients = get(a:params, 'clients', [])
    let self.clients = type(clients) == v:t_list ? clients : []
    call self.log.info('connected CLIs: ' . (empty(self.clients) ? 'none' : join(self.client_names(), ', ')))
    call self.changed()
  elseif a:method ==# 'warnings'
    call self.set_warnings(get(a:params, 'warnings', []))
  elseif a:method ==# 'diff/outcome' && type(get(a:params, 'message', v:null)) == v:t_string
    " What became of a diff answered in the CLI's terminal: the user asked, so always tell.
    call self.log.tell(get(a:params, 'kind', '') ==# 'changed' ? 'warn' : 'info', a:params.message)
  endif
endfunction

function! s:App.client_names() abort
  return map(copy(self.clients), {_, client -> s:text(type(client) == v:t_dict ? get(client, 'name', '?') : '?')})
endfunction

" Sends the user's answer to diff {view}; {Done}(error) runs once the sidecar has taken it
" (protocol 1.1), or at once (1.0, where answers are notifications).
function! s:App.answer(view, outcome, content, Done) abort
  if self.state !=# 'running'
    call a:Done(v:null)
    return
  endif
  let params = {'id': a:view.id}
  if a:outcome ==# 'accepted'
    let params.content = a:content
    call self.reload.after_write(a:view.path)
  endif
  let method = 'diff/' . a:outcome
  call self.log.info(printf('%s the proposal for %s', a:outcome, a:view.path))
  if self.answer_replies
    call self.rpc.request(method, params, {error, _ -> a:Done(error)})
  else
    call self.rpc.notify(method, params)
    call a:Done(v:null)
  endif
endfunction

function! s:App.exited(rpc, code) abort
  if a:rpc isnot self.rpc
    return
  endif
  let self.rpc = v:null
  " With the sidecar gone no answer can reach a CLI: just close the views.
  call self.diffs.end_all(0, 0)
  call self.context.detach()
  call self.reload.cancel_all()
  call self.clear_env()
  let [self.port, self.discovery_files, self.clients, self.warnings] = [v:null, [], [], []]
  augroup TandemApp
    autocmd!
  augroup END
  if self.state ==# 'stopping'
    let self.state = 'stopped'
    call self.changed()
  elseif self.state !=# 'failed'
    call self.fail(printf('the sidecar exited (code %d); its log is in %s', a:code, self.config.log_file))
  endif
endfunction

" Stops the sidecar: open diffs are rejected, its discovery files removed. {leaving}: Vim is
" quitting, leave the windows alone.
function! s:App.stop(leaving) abort
  let rpc = self.rpc
  if rpc is v:null
    let self.state = 'stopped'
    let self.error = v:null
    call self.changed()
    return
  endif
  call self.diffs.end_all(1, a:leaving)
  call self.context.detach()
  let self.state = 'stopping'
  " The sidecar answers the diffs it still has, removes its files and exits, on `shutdown` or
  " on its stdin closing, whichever it reads first.
  call rpc.request('shutdown', {}, {error, result -> 0})
  call rpc.close_stdin()
  call rpc.wait_or_stop(s:SHUTDOWN_TIMEOUT)
  " Stopped now, even if the report of the exit is still on its way (it is then ignored).
  call self.exited(rpc, 0)
endfunction

" Starts the sidecar if needed and waits up to {timeout} ms until it runs.
function! s:App.ensure_running(timeout) abort
  call self.start()
  let deadline = reltimefloat(reltime()) + a:timeout / 1000.0
  while self.state ==# 'starting' && reltimefloat(reltime()) < deadline
    sleep 20m
  endwhile
  return self.state ==# 'running'
endfunction

function! s:App.status() abort
  return {
        \ 'state': self.state,
        \ 'error': self.error,
        \ 'pid': self.rpc isnot v:null ? self.rpc.pid() : v:null,
        \ 'port': self.port,
        \ 'clients': self.clients,
        \ 'warnings': self.warnings,
        \ 'discovery_files': self.discovery_files,
        \ 'env': self.env,
        \ 'diffs': self.diffs.list(),
        \ 'workspace_folders': tandem#context#workspace_folders(),
        \ 'log_file': self.config.log_file,
        \ 'command': self.command(),
        \ }
endfunction

function! s:App.statusline() abort
  if self.state ==# 'running'
    return 'Tandem: ' . (empty(self.clients) ? 'no CLI' : join(self.client_names(), ', '))
  elseif self.state ==# 'starting'
    return 'Tandem: starting'
  elseif self.state ==# 'failed'
    return 'Tandem: failed'
  endif
  return ''
endfunction

" The public API ------------------------------------------------------------------------------

function! tandem#start() abort
  call s:app().start()
endfunction

function! tandem#stop() abort
  call s:app().stop(0)
endfunction

function! tandem#_leaving() abort
  if exists('s:app')
    call s:app.stop(1)
  endif
endfunction

" A dictionary describing the connection: state, port, clients, discovery files, open diffs...
function! tandem#status() abort
  return s:app().status()
endfunction

" Text for a status line: '' when Tandem is not running.
function! tandem#statusline() abort
  return exists('s:app') ? s:app.statusline() : ''
endfunction

" Accepts the diff {id}, or the one in the current tab, or the only one open.
function! tandem#accept(...) abort
  call s:app().diffs.accept(get(a:, 1, v:null))
endfunction

" Rejects the diff {id}, or the one in the current tab, or the only one open.
function! tandem#reject(...) abort
  call s:app().diffs.reject(get(a:, 1, v:null))
endfunction

" Opens CLI {name} ('gemini', 'qwen', or one of g:tandem_clis) with {args} in a terminal
" window, after making sure the sidecar runs so that the CLI finds this Vim.
function! tandem#open_cli(name, args) abort
  let app = s:app()
  if !app.ensure_running(s:START_TIMEOUT)
    call app.log.warn('the sidecar is not running: the CLI will not connect to Vim (see :TandemStatus)')
  endif
  call tandem#terminal#open(app.config, a:name, a:args)
endfunction

" The names :Tandem completes.
function! tandem#complete(lead, line, pos) abort
  if a:line[: a:pos - 1] !~# '^\s*\S\+\s\+\S*$'
    return []
  endif
  return filter(tandem#terminal#names(s:app().config), {_, name -> stridx(name, a:lead) == 0})
endfunction

" Runs {Action} as a command does: an error becomes a message, not a stack trace.
function! tandem#command(Action) abort
  try
    call a:Action()
  catch
    echohl ErrorMsg
    echomsg 'Tandem: ' . substitute(v:exception, '^Vim\%((\a\+)\)\=:', '', '')
    echohl None
  endtry
endfunction

" Prints what :TandemStatus shows.
function! tandem#print_status() abort
  let s = tandem#status()
  echo 'Tandem: ' . s.state . (s.pid isnot v:null ? ' (sidecar pid ' . s.pid . ')' : '')
  if s.error isnot v:null
    echohl ErrorMsg | echo 'Error: ' . s.error | echohl None
  endif
  if s.port isnot v:null
    echo 'Port: ' . s.port
  endif
  echo 'Workspace: ' . join(s.workspace_folders, ', ')
  let clients = map(copy(s.clients), {_, c -> s:text(get(c, 'name', '?')) . (has_key(c, 'version') ? ' ' . s:text(c.version) : '')})
  echo 'Connected CLIs: ' . (empty(clients) ? 'none' : join(clients, ', '))
  for warning in s.warnings
    echohl WarningMsg | echo 'Warning: ' . s:warning_text(warning) | echohl None
  endfor
  echo 'Discovery files:' . (empty(s.discovery_files) ? ' none' : '')
  for file in s.discovery_files
    echo '  ' . file
  endfor
  for diff in s.diffs
    echo 'Open diff: ' . diff.path
  endfor
  echo 'Log: ' . s.log_file
endfunction

" A warning of the engine as people read it: what goes wrong, then what to do.
function! s:warning_text(warning) abort
  return a:warning.message . (a:warning.fix is v:null ? '' : ' ' . a:warning.fix)
endfunction

" The command of the built `tandem` with {args}, as a list.
function! s:tandem_command(args) abort
  let script = tandem#sidecar_script()
  if !filereadable(script)
    throw printf('Tandem is not built: run `npm run build:sidecar` in %s', s:ROOT)
  endif
  return [s:app().config.node, script] + a:args
endfunction

" Runs `tandem doctor` for Vim's folder, then shows its report in a scratch window. The job
" inherits the session's variables, so the report is about what a CLI started from Vim finds.
function! tandem#doctor() abort
  let cmd = s:tandem_command(['doctor', '--cwd', getcwd()])
  if !executable(cmd[0])
    throw printf('`%s` is not an executable (see g:tandem_node)', cmd[0])
  endif
  let report = []
  call job_start(cmd, {'in_io': 'null', 'err_io': 'out',
        \ 'out_cb': {_, line -> add(report, line)},
        \ 'close_cb': {_ -> s:show_report(report)}})
endfunction

let s:REPORT = 'tandem://doctor'

function! s:show_report(lines) abort
  if bufexists(s:REPORT)
    silent execute 'bwipeout' bufnr(s:REPORT)
  endif
  botright new
  setlocal buftype=nofile bufhidden=wipe noswapfile nobuflisted
  silent execute 'file' s:REPORT
  call setline(1, a:lines)
  setlocal nomodifiable nomodified
endfunction

" The line that connects a CLI in another terminal to this Vim, to paste there.
function! tandem#env_line() abort
  return printf('eval "$(%s)"', join(map(s:tandem_command(['env', '--cwd', getcwd()]),
        \ 'shellescape(v:val)'), ' '))
endfunction

" Shows what :TandemEnv shows.
function! tandem#print_env() abort
  echo 'Paste in another terminal, before starting the CLI:'
  echo tandem#env_line()
endfunction
