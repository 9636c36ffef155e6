" What the user looks at: file buffers opened, closed and focused, the cursor and the selection,
" and the working directory. Each editor event becomes at most one call of the bridge; the
" sidecar coalesces and trims. Cursor events only start a timer: the work happens once per
" quiet moment, never once per key.

" A character takes at most 4 bytes in UTF-8.
let s:CHARACTER_BYTES = 4
let s:CURSOR_DELAY = 50

let s:Context = {}
" The attached contexts, by serial, for their autocommands (which can only name them).
let s:attached = {}
let s:serial = 0

" While attached, the facts go to 'bridge' (see bridge.vim).
function! tandem#context#new() abort
  return extend(copy(s:Context), {'bridge': v:null, 'selection_bytes': 0, 'serial': 0, 'open': {}, 'focused': '',
        \ 'last_cursor': '', 'workspace': '', 'timer': -1})
endfunction

" The absolute path of buffer {buf} when it shows a real file on disk, else ''.
function! tandem#context#file_path(buf) abort
  if !bufexists(a:buf) || getbufvar(a:buf, '&buftype') !=# ''
    return ''
  endif
  let name = bufname(a:buf)
  if name ==# '' || name =~# '^\a[[:alnum:]+.-]*://'
    return ''
  endif
  let path = fnamemodify(name, ':p')
  return filereadable(path) ? path : ''
endfunction

" The workspace folders the CLIs match their working directory against.
function! tandem#context#workspace_folders() abort
  return [getcwd(-1)]
endfunction

" Where the cursor is in {line}, in characters from 1, given Vim's byte column {col}.
function! tandem#context#character(line, col) abort
  return strchars(strpart(a:line, 0, a:col - 1)) + 1
endfunction

function! s:Context.opened(buf) abort
  let path = buflisted(a:buf) ? tandem#context#file_path(a:buf) : ''
  let known = get(self.open, a:buf, '')
  if known ==# path
    return path
  endif
  if known !=# ''
    call self.closed(a:buf)
  endif
  if path !=# ''
    let self.open[a:buf] = path
    call self.bridge.file_opened(path)
  endif
  return path
endfunction

function! s:Context.closed(buf) abort
  if !has_key(self.open, a:buf)
    return
  endif
  let path = remove(self.open, a:buf)
  if self.focused ==# path
    let self.focused = ''
    let self.last_cursor = ''
  endif
  call self.bridge.file_closed(path)
endfunction

function! s:Context.focus(buf) abort
  let path = self.opened(a:buf)
  if path ==# ''
    return
  endif
  if self.focused !=# path
    let self.focused = path
    let self.last_cursor = ''
    call self.bridge.file_focused(path)
  endif
  call self.cursor()
endfunction

" Called on every cursor move: only makes sure the cursor is read soon.
function! s:Context.cursor_moved() abort
  if self.timer == -1
    let self.timer = timer_start(s:CURSOR_DELAY, {-> self.cursor()})
  endif
endfunction

" Sends the cursor of the current window if it shows the focused file and moved since the
" last message. The comparison key is built from cheap values only; the selected text is read
" just when the key changed.
function! s:Context.cursor() abort
  if self.timer != -1
    call timer_stop(self.timer)
    let self.timer = -1
  endif
  let buf = bufnr('%')
  let path = get(self.open, buf, '')
  if path ==# '' || path !=# self.focused
    return
  endif
  let mode = mode()
  let [row, col] = [line('.'), col('.')]
  let key = path . ':' . row . ':' . col
  let visual = tandem#selection#kind(mode)
  if visual !=# ''
    let v = getpos('v')
    let key .= ':' . visual . ':' . v[1] . ':' . v[2] . ':' . b:changedtick
  endif
  if key ==# self.last_cursor
    return
  endif
  let self.last_cursor = key
  call self.bridge.cursor_changed(path, row, tandem#context#character(getline('.'), col),
        \ visual !=# '' ? tandem#selection#text(mode, self.selection_bytes) : v:null)
endfunction

function! s:Context.directory_changed() abort
  let folders = tandem#context#workspace_folders()
  let key = join(folders, "\n")
  if key !=# self.workspace
    let self.workspace = key
    call self.bridge.workspace_changed(folders)
  endif
endfunction

" An autocommand of an attached context.
function! tandem#context#event(serial, event, buf) abort
  let context = get(s:attached, a:serial, {})
  if empty(context)
    return
  endif
  if a:event ==# 'cursor'
    call context.cursor_moved()
  elseif a:event ==# 'enter'
    call context.focus(a:buf)
  elseif a:event ==# 'buffer'
    " Saving a new file or renaming one can turn the current buffer into a focused file.
    if a:buf == bufnr('%')
      call context.focus(a:buf)
    else
      call context.opened(a:buf)
    endif
  elseif a:event ==# 'gone'
    call context.closed(a:buf)
  elseif a:event ==# 'directory'
    call context.directory_changed()
  endif
endfunction

" Starts following the editor, telling {bridge}; reports the buffers already open and the
" focused one. Of a selection it reads what the CLIs keep: {selection_limit} characters.
function! s:Context.attach(bridge, selection_limit) abort
  let self.bridge = a:bridge
  let self.selection_bytes = a:selection_limit * s:CHARACTER_BYTES
  let s:serial += 1
  let self.serial = s:serial
  let s:attached[self.serial] = self
  let self.workspace = join(tandem#context#workspace_folders(), "\n")
  let call = 'call tandem#context#event(' . self.serial . ', '
  augroup TandemContext
    autocmd!
    execute 'autocmd BufAdd,BufReadPost,BufWritePost,BufFilePost *' call . '"buffer", +expand("<abuf>"))'
    execute 'autocmd BufEnter *' call . '"enter", +expand("<abuf>"))'
    execute 'autocmd BufDelete,BufWipeout *' call . '"gone", +expand("<abuf>"))'
    execute 'autocmd CursorMoved,CursorMovedI,WinEnter *' call . '"cursor", 0)'
    if exists('##ModeChanged')
      execute 'autocmd ModeChanged *' call . '"cursor", 0)'
    endif
    execute 'autocmd DirChanged *' call . '"directory", 0)'
  augroup END
  for info in getbufinfo()
    call self.opened(info.bufnr)
  endfor
  call self.focus(bufnr('%'))
endfunction

function! s:Context.detach() abort
  if has_key(s:attached, self.serial)
    call remove(s:attached, self.serial)
    augroup TandemContext
      autocmd!
    augroup END
  endif
  if self.timer != -1
    call timer_stop(self.timer)
  endif
  call extend(self, {'bridge': v:null, 'open': {}, 'focused': '', 'last_cursor': '', 'workspace': '', 'timer': -1})
endfunction
