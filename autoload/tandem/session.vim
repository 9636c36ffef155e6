" One Tandem session in this Vim: the sidecar's life (start, running, stop, failure), and what
" connects it to the editor: the context, the diff views, reloads after accepts and the
" environment of terminals. Everything it holds belongs to this instance.

" Quitting Vim waits at most this long for the sidecar to clean up.
let s:SHUTDOWN_TIMEOUT = 1000

let s:Session = {}

function! tandem#session#new(config) abort
  let session = extend(copy(s:Session), {'config': a:config,
        \ 'state': 'stopped', 'error': v:null,
        \ 'bridge': v:null, 'port': v:null, 'discovery_files': [], 'clients': [], 'warnings': [],
        \ 'context': tandem#context#new(), 'terminal_env': tandem#terminal_env#new()})
  let session.log = tandem#log#new(a:config.log_file, a:config.log_level)
  let session.reload = tandem#reload#new(session.log)
  let session.diffs = tandem#diff#new({'config': a:config, 'log': session.log,
        \ 'answer': {view, outcome, content, Done -> session.answer(view, outcome, content, Done)}})
  return session
endfunction

function! s:Session.changed() abort
  redrawstatus!
  if exists('#User#TandemStatusChanged')
    doautocmd <nomodeline> User TandemStatusChanged
  endif
endfunction

function! s:Session.fail(message) abort
  let self.state = 'failed'
  let self.error = a:message
  call self.log.error(a:message)
  call self.changed()
endfunction

" Starts the sidecar (nothing happens when it runs or is starting).
function! s:Session.start() abort
  if self.state ==# 'starting' || self.state ==# 'running'
    return
  endif
  let problem = tandem#sidecar#problem(self.config)
  if problem !=# ''
    return self.fail(problem)
  endif
  let self.state = 'starting'
  let self.error = v:null
  let session = self
  let bridge = {}
  try
    let bridge = tandem#bridge#start(tandem#sidecar#command(self.config), {
          \ 'show_diff': {diff -> session.diffs.open(diff)},
          \ 'close_diff': {id -> session.close_diff(id)},
          \ 'diff_closed': {notice -> session.diffs.told(notice)},
          \ 'clients_changed': {clients -> session.clients_changed(clients)},
          \ 'warnings_changed': {warnings -> session.warnings_changed(warnings)},
          \ 'env_changed': {env -> session.terminal_env.set(env)},
          \ 'diff_outcome': {outcome -> session.diff_outcome(outcome)},
          \ 'log': {line -> session.log.debug('sidecar: ' . line)},
          \ 'exited': {code -> session.exited(bridge, code)},
          \ })
  catch
    return self.fail('cannot start the sidecar: ' . v:exception)
  endtry
  let self.bridge = bridge
  augroup TandemSession
    autocmd!
    autocmd VimLeavePre * call tandem#_leaving()
  augroup END
  call self.changed()
  call bridge.initialize({'name': 'vim', 'display_name': 'Vim',
        \ 'version': printf('%d.%d.%d', v:version / 100, v:version % 100, v:versionlong % 10000),
        \ 'pid': getpid(), 'folders': tandem#context#workspace_folders()},
        \ {error, result -> session.initialized(bridge, error, result)})
endfunction

function! s:Session.initialized(bridge, error, result) abort
  if a:bridge isnot self.bridge
    return
  endif
  if a:error isnot v:null
    call self.fail('the sidecar did not start: ' . a:error)
    call a:bridge.close()
    return
  endif
  let self.state = 'running'
  let self.port = a:result.port
  let self.discovery_files = a:result.discovery_files
  call self.terminal_env.set(a:result.env)
  call self.context.attach(a:bridge, a:result.selection_limit)
  call self.log.info(printf('listening on port %d', self.port))
  " Last: it reports the change of state too.
  call self.warnings_changed(a:result.warnings)
endfunction

" The engine's warnings, which replace the last ones. A new list is announced in one short
" line: :TandemStatus shows it whole. Where to look comes before the codes, which a narrow
" window cuts.
function! s:Session.warnings_changed(warnings) abort
  for warning in a:warnings
    call self.log.write('info', printf('warning (%s): %s', warning.code, tandem#status#warning_text(warning)))
  endfor
  if a:warnings != self.warnings && !empty(a:warnings)
    call self.log.tell('warn', printf('%d %s, see :TandemStatus (%s)', len(a:warnings),
          \ len(a:warnings) == 1 ? 'warning' : 'warnings', join(map(copy(a:warnings), 'v:val.code'), ', ')))
  endif
  let self.warnings = a:warnings
  call self.changed()
endfunction

function! s:Session.clients_changed(clients) abort
  let self.clients = a:clients
  call self.log.info('connected CLIs: ' . (empty(a:clients) ? 'none' : join(tandem#status#names(a:clients), ', ')))
  call self.changed()
endfunction

" What became of a diff answered in the CLI's terminal: the user asked, so always tell.
function! s:Session.diff_outcome(outcome) abort
  call self.log.tell(a:outcome.kind ==# 'changed' ? 'warn' : 'info', a:outcome.message)
endfunction

" Sends the file of buffer {buf}, or its lines {first}..{last}, to Claude Code's prompt, and
" tells the user whether one received it (see :Tandem send).
function! s:Session.send(buf, first, last) abort
  let path = tandem#context#file_path(a:buf)
  if path ==# ''
    throw 'this buffer is not a file on disk: write it first'
  endif
  if self.state !=# 'running'
    throw 'the sidecar is not running: start it with :TandemStart'
  endif
  let log = self.log
  call self.bridge.mention(path, a:first, a:last, {error, answer -> error isnot v:null
        \ ? log.tell('error', error) : log.tell(answer.ok ? 'info' : 'warn', answer.message)})
endfunction

function! s:Session.close_diff(id) abort
  let [content, view] = self.diffs.close(a:id)
  " Approved in the terminal: the CLI writes the file now.
  call self.reload.after_write(view.path)
  return content
endfunction

" Sends the user's answer to diff {view}; {Done}(error) runs once the sidecar has taken it.
function! s:Session.answer(view, outcome, content, Done) abort
  if self.state !=# 'running'
    call a:Done(v:null)
    return
  endif
  call self.log.info(printf('%s the proposal for %s', a:outcome, a:view.path))
  if a:outcome ==# 'accepted'
    " Before the CLI can write: the buffer of the file follows what it writes.
    call self.reload.after_write(a:view.path)
    call self.bridge.accept_diff(a:view.id, a:content, a:Done)
  else
    call self.bridge.reject_diff(a:view.id, a:Done)
  endif
endfunction

function! s:Session.exited(bridge, code) abort
  if a:bridge isnot self.bridge
    return
  endif
  let self.bridge = v:null
  " With the sidecar gone no answer can reach a CLI: just close the views.
  call self.diffs.end_all(0, 0)
  call self.context.detach()
  call self.reload.cancel_all()
  call self.terminal_env.clear()
  let [self.port, self.discovery_files, self.clients, self.warnings] = [v:null, [], [], []]
  augroup TandemSession
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
function! s:Session.stop(leaving) abort
  let bridge = self.bridge
  if bridge is v:null
    let self.state = 'stopped'
    let self.error = v:null
    call self.changed()
    return
  endif
  call self.diffs.end_all(1, a:leaving)
  call self.context.detach()
  let self.state = 'stopping'
  call bridge.stop(s:SHUTDOWN_TIMEOUT)
  " Stopped now, even if the report of the exit is still on its way (it is then ignored).
  call self.exited(bridge, 0)
endfunction

" Starts the sidecar if needed and waits up to {timeout} ms until it runs.
function! s:Session.ensure_running(timeout) abort
  call self.start()
  let deadline = reltimefloat(reltime()) + a:timeout / 1000.0
  while self.state ==# 'starting' && reltimefloat(reltime()) < deadline
    sleep 20m
  endwhile
  return self.state ==# 'running'
endfunction

" What :TandemStatus and the status line show.
function! s:Session.status() abort
  return {
        \ 'state': self.state,
        \ 'error': self.error,
        \ 'pid': self.bridge isnot v:null ? self.bridge.pid() : v:null,
        \ 'port': self.port,
        \ 'clients': self.clients,
        \ 'warnings': self.warnings,
        \ 'discovery_files': self.discovery_files,
        \ 'env': self.terminal_env.get(),
        \ 'diffs': self.diffs.list(),
        \ 'workspace_folders': tandem#context#workspace_folders(),
        \ 'log_file': self.config.log_file,
        \ 'command': tandem#sidecar#command(self.config),
        \ 'version': tandem#sidecar#version(),
        \ }
endfunction
