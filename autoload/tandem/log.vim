" The plugin's log: every message goes to the log file; those at or above the chosen level
" are also shown.

let s:LEVELS = {'debug': 1, 'info': 2, 'warn': 3, 'error': 4}
let s:MAX_SIZE = 1024 * 1024

let s:Log = {}

function! tandem#log#levels() abort
  return keys(s:LEVELS)
endfunction

function! tandem#log#new(file, level) abort
  return extend(copy(s:Log), {'path': a:file, 'threshold': s:LEVELS[a:level], 'opened': 0})
endfunction

function! s:Log.write(level, message) abort
  if !self.opened
    let self.opened = 1
    call mkdir(fnamemodify(self.path, ':h'), 'p')
    " Start afresh once the file has grown large, rather than rotating.
    if getfsize(self.path) > s:MAX_SIZE
      call delete(self.path)
    endif
  endif
  let lines = split(a:message, "\n", 1)
  let lines[0] = strftime('%Y-%m-%d %H:%M:%S') . ' ' . toupper(a:level) . ' ' . lines[0]
  silent! call writefile(lines, self.path, 'a')
endfunction

function! s:Log.log(level, message) abort
  call self.write(a:level, a:message)
  if s:LEVELS[a:level] >= self.threshold
    execute 'echohl' a:level ==# 'error' ? 'ErrorMsg' : a:level ==# 'warn' ? 'WarningMsg' : 'None'
    echomsg 'Tandem: ' . a:message
    echohl None
  endif
endfunction

" Tells the user {message} whatever the level, in one line cut to fit: a longer one would stop
" Vim at a hit-enter prompt, maybe in the middle of typing in a CLI. The log keeps it whole.
function! s:Log.tell(level, message) abort
  call self.write(a:level, a:message)
  let text = 'Tandem: ' . substitute(a:message, '\n', ' ', 'g')
  let room = max([v:echospace - 1, 20])
  if strdisplaywidth(text) > room
    let n = room - 1
    while strdisplaywidth(strcharpart(text, 0, n) . '…') > room
      let n -= 1
    endwhile
    let text = strcharpart(text, 0, n) . '…'
  endif
  execute 'echohl' a:level ==# 'error' ? 'ErrorMsg' : a:level ==# 'warn' ? 'WarningMsg' : 'None'
  echomsg text
  echohl None
endfunction

function! s:Log.debug(message) abort
  call self.log('debug', a:message)
endfunction

function! s:Log.info(message) abort
  call self.log('info', a:message)
endfunction

function! s:Log.warn(message) abort
  call self.log('warn', a:message)
endfunction

function! s:Log.error(message) abort
  call self.log('error', a:message)
endfunction
