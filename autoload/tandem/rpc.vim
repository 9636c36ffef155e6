" JSON-RPC 2.0 with a child process, one message per line on its stdin and stdout.
" Vim's 'json' channel mode frames messages as [id, msg] arrays, not JSON-RPC: this uses 'nl'
" and encodes each message itself.

let s:SERVER_ERROR = -32000
let s:METHOD_NOT_FOUND = -32601
" Every message names the version; a notification whose params are JSON already starts so.
let s:VERSION = '2.0'
let s:NOTIFICATION_START = '{"jsonrpc":' .. json_encode(s:VERSION) .. ',"method":'

let s:Rpc = {}

" Starts {cmd} (a list), with {env} added to Vim's environment, and talks to it. {handlers}:
" 'request'(method, params) returns the result or throws (the error reply; a thrown dict
" {'code', 'message'} keeps its code), 'notification'(method, params), 'stderr'(line),
" 'exit'(code). Throws when it cannot start.
function! tandem#rpc#start(cmd, handlers, env) abort
  let rpc = extend(copy(s:Rpc), {'handlers': a:handlers, 'pending': {}, 'next_id': 1,
        \ 'running': 0})
  let options = {
        \ 'in_mode': 'nl', 'out_mode': 'nl', 'err_mode': 'nl',
        \ 'noblock': 1,
        \ 'out_cb': {_, line -> rpc.receive(line)},
        \ 'err_cb': {_, line -> a:handlers.stderr(line)},
        \ 'exit_cb': {_, code -> rpc.exited(code)},
        \ 'stoponexit': 'term',
        \ 'env': a:env,
        \ }
  let rpc.notify = function('s:notify', [rpc])
  let rpc.notify_encoded = function('s:notify_encoded', [rpc])
  let rpc.job = job_start(a:cmd, options)
  if job_status(rpc.job) ==# 'fail'
    throw 'cannot run ' . join(a:cmd)
  endif
  let rpc.running = 1
  return rpc
endfunction

function! s:Rpc.pid() abort
  return self.running ? job_info(self.job).process : v:null
endfunction

" Writes {message} to {rpc}'s sidecar; false when it is not running or the write fails.
def s:send(rpc: dict<any>, message: dict<any>): bool
  message.jsonrpc = s:VERSION
  return s:write(rpc, json_encode(message))
enddef

" Writes {json}, one message, as a line. Compiled, as the notification sent on a look at the
" cursor is.
def s:write(rpc: dict<any>, json: string): bool
  if !rpc.running
    return false
  endif
  try
    ch_sendraw(job_getchannel(rpc.job), json .. "\n")
    return true
  catch
    return false
  endtry
enddef

" Sends a request; {Callback}(error, result) runs once, with the reply or the reason none came.
" The error is v:null or a dict {'code', 'message'}.
function! s:Rpc.request(method, params, Callback) abort
  let id = self.next_id
  let self.next_id += 1
  let self.pending[id] = a:Callback
  if !s:send(self, {'id': id, 'method': a:method, 'params': a:params})
    call remove(self.pending, id)
    call a:Callback({'code': s:SERVER_ERROR, 'message': 'the sidecar is not running'}, v:null)
  endif
endfunction

" Sends a notification: rpc.notify(method, params), or rpc.notify_encoded(method, params_json)
" with the params already in JSON.
def s:notify(rpc: dict<any>, method: string, params: dict<any>)
  s:notify_encoded(rpc, method, json_encode(params))
enddef

def s:notify_encoded(rpc: dict<any>, method: string, params_json: string)
  s:write(rpc, s:NOTIFICATION_START .. json_encode(method) .. ',"params":' .. params_json .. '}')
enddef

function! s:Rpc.receive(line) abort
  if a:line ==# ''
    return
  endif
  try
    let message = json_decode(a:line)
  catch
    let message = v:null
  endtry
  if type(message) != v:t_dict
    call self.handlers.stderr('unreadable message from the sidecar: ' . strpart(a:line, 0, 200))
    return
  endif
  let method = get(message, 'method', v:null)
  let id = get(message, 'id', v:null)
  if type(method) == v:t_string && id isnot v:null
    call self.answer(id, method, get(message, 'params', v:null))
  elseif type(method) == v:t_string
    call self.handlers.notification(method, get(message, 'params', v:null))
  elseif type(id) == v:t_number && has_key(self.pending, id)
    let Callback = remove(self.pending, id)
    let error = get(message, 'error', v:null)
    if error isnot v:null
      call Callback(type(error) == v:t_dict ? error : {'code': s:SERVER_ERROR, 'message': string(error)}, v:null)
    else
      call Callback(v:null, get(message, 'result', v:null))
    endif
  endif
endfunction

function! s:Rpc.answer(id, method, params) abort
  try
    let result = self.handlers.request(a:method, a:params)
  catch
    let error = {'code': s:SERVER_ERROR, 'message': substitute(v:exception, '^Vim\%((\a\+)\)\=:', '', '')}
    call s:send(self, {'id': a:id, 'error': error})
    return
  endtry
  if result is v:null
    call s:send(self, {'id': a:id, 'error': {'code': s:METHOD_NOT_FOUND, 'message': 'unknown method ' . a:method}})
  else
    call s:send(self, {'id': a:id, 'result': result})
  endif
endfunction

function! s:Rpc.exited(code) abort
  let self.running = 0
  let pending = self.pending
  let self.pending = {}
  for Callback in values(pending)
    call Callback({'code': s:SERVER_ERROR, 'message': 'the sidecar exited'}, v:null)
  endfor
  call self.handlers.exit(a:code)
endfunction

" Closes the sidecar's stdin: it then cleans up and exits.
function! s:Rpc.close_stdin() abort
  if self.running
    silent! call ch_close_in(job_getchannel(self.job))
  endif
endfunction

" Waits up to {timeout} ms for the process to end, then stops it.
function! s:Rpc.wait_or_stop(timeout) abort
  let deadline = reltimefloat(reltime()) + a:timeout / 1000.0
  while job_status(self.job) ==# 'run' && reltimefloat(reltime()) < deadline
    sleep 10m
  endwhile
  if job_status(self.job) ==# 'run'
    call job_stop(self.job)
  endif
endfunction
