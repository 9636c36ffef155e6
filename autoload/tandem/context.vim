" What the user looks at: file buffers opened, closed and focused, the cursor and the selection,
" and the working directory. Each editor event becomes at most one call of the bridge; the
" sidecar coalesces and trims. The cursor and the selection, followed on every key, are
" cursor.vim's (compiled Vim9 script).

let s:Context = {}
" The attached context (one at a time: its autocommands are the group TandemContext).
let s:current = {}

" While attached, the facts go to 'bridge' (see bridge.vim).
function! tandem#context#new() abort
  return extend(copy(s:Context), {'bridge': v:null, 'selection_chars': 0, 'open': {}, 'focused': '',
        \ 'last_cursor': [], 'workspace': ''})
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
    let self.last_cursor = []
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
    let self.last_cursor = []
    call self.bridge.file_focused(path)
  endif
  call tandem#cursor#Send(self)
endfunction

function! s:Context.directory_changed() abort
  let folders = tandem#context#workspace_folders()
  let key = join(folders, "\n")
  if key !=# self.workspace
    let self.workspace = key
    call self.bridge.workspace_changed(folders)
  endif
endfunction

" A buffer was added, read, written or renamed: saving a new file or renaming one can turn the
" current buffer into a focused file.
function! s:Context.buffer_changed(buf) abort
  if a:buf == bufnr('%')
    call self.focus(a:buf)
  else
    call self.opened(a:buf)
  endif
endfunction

" Starts following the editor, telling {bridge}; reports the buffers already open and the
" focused one. Of a selection it reads what the CLIs keep, {selection_limit} characters, and one
" more: the sidecar then knows that the selection goes on, and marks the cut as the CLIs do.
function! s:Context.attach(bridge, selection_limit) abort
  let self.bridge = a:bridge
  let self.selection_chars = a:selection_limit + 1
  let s:current = self
  let self.workspace = join(tandem#context#workspace_folders(), "\n")
  " Autocommands run in this script's context: they reach s:current.
  augroup TandemContext
    autocmd!
    autocmd BufAdd,BufReadPost,BufWritePost,BufFilePost * call s:current.buffer_changed(+expand('<abuf>'))
    autocmd BufEnter * call s:current.focus(+expand('<abuf>'))
    autocmd BufDelete,BufWipeout * call s:current.closed(+expand('<abuf>'))
    autocmd DirChanged * call s:current.directory_changed()
  augroup END
  call tandem#cursor#Follow(self)
  for info in getbufinfo()
    call self.opened(info.bufnr)
  endfor
  call self.focus(bufnr('%'))
endfunction

function! s:Context.detach() abort
  if s:current is self
    let s:current = {}
    augroup TandemContext
      autocmd!
    augroup END
  endif
  call tandem#cursor#Unfollow(self)
  call extend(self, {'bridge': v:null, 'open': {}, 'focused': '', 'last_cursor': [], 'workspace': ''})
endfunction
