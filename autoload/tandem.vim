" Tandem for Vim: the IDE companion of Gemini CLI and Qwen Code. These functions are the public
" API (see :help tandem-vim-api), holding this Vim's one session (autoload/tandem/session.vim).

let s:START_TIMEOUT = 10000

function! s:session() abort
  if !exists('s:session')
    let s:session = tandem#session#new(tandem#config#resolve())
  endif
  return s:session
endfunction

function! tandem#start() abort
  call s:session().start()
endfunction

function! tandem#stop() abort
  call s:session().stop(0)
endfunction

function! tandem#_leaving() abort
  if exists('s:session')
    call s:session.stop(1)
  endif
endfunction

" A dictionary describing the connection: state, port, clients, discovery files, open diffs...
function! tandem#status() abort
  return s:session().status()
endfunction

" Text for a status line: '' when Tandem is not running.
function! tandem#statusline() abort
  return exists('s:session') ? tandem#status#line(s:session.status()) : ''
endfunction

" Accepts the diff {id}, or the one in the current tab, or the only one open.
function! tandem#accept(...) abort
  call s:session().diffs.accept(get(a:, 1, v:null))
endfunction

" Rejects the diff {id}, or the one in the current tab, or the only one open.
function! tandem#reject(...) abort
  call s:session().diffs.reject(get(a:, 1, v:null))
endfunction

" Opens CLI {name} ('gemini', 'qwen', or one of g:tandem_clis) with {args} in a terminal
" window, after making sure the sidecar runs so that the CLI finds this Vim.
function! tandem#open_cli(name, args) abort
  let session = s:session()
  if !session.ensure_running(s:START_TIMEOUT)
    call session.log.warn('the sidecar is not running: the CLI will not connect to Vim (see :TandemStatus)')
  endif
  call tandem#terminal#open(session.config, a:name, a:args)
endfunction

" :[range]Tandem {cli} [args] or :[range]Tandem send: {range} is 0 without a range.
function! tandem#run(args, range, line1, line2) abort
  if a:args[0] ==# 'send'
    " A range (or a Visual selection) sends those lines; none, the whole file.
    call s:session().send(bufnr(''), a:range > 0 ? a:line1 : v:null, a:range > 0 ? a:line2 : v:null)
    return
  endif
  call tandem#open_cli(a:args[0], a:args[1:])
endfunction

" The names :Tandem completes.
function! tandem#complete(lead, line, pos) abort
  if a:line[: a:pos - 1] !~# '^\s*\S\+\s\+\S*$'
    return []
  endif
  return filter(tandem#terminal#names(s:session().config) + ['send'], {_, name -> stridx(name, a:lead) == 0})
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
  call tandem#status#print(tandem#status())
endfunction

" Like :TandemDoctor.
function! tandem#doctor() abort
  call tandem#doctor#run(s:session().config)
endfunction

" The line that connects a CLI in another terminal to this Vim, to paste there.
function! tandem#env_line() abort
  return tandem#doctor#env_line(s:session().config)
endfunction

" Shows what :TandemEnv shows.
function! tandem#print_env() abort
  echo 'Paste in another terminal, before starting the CLI:'
  echo tandem#env_line()
endfunction
