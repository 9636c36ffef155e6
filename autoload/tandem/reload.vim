" After a CLI writes a file the user accepted, the file's buffer shows the new text by itself,
" unless the buffer has unsaved changes: those are never overwritten.

let s:INTERVAL = 200
" The CLI writes right after the answer reaches it; stop waiting long after that.
let s:GIVE_UP = 60.0
" A write may take several steps (truncate, then write): follow changes until they settle.
let s:SETTLE = 2.0

let s:Reload = {}

function! tandem#reload#new(log) abort
  return extend(copy(s:Reload), {'log': a:log, 'watches': {}})
endfunction

" Checks buffer {buf} against its file now, with Vim's own change detection; Vim asks nothing:
" this decides. Returns '' (no change), 'reloaded' or 'kept' (unsaved changes in the buffer).
function! s:check(buf) abort
  let s:outcome = ''
  augroup TandemReload
    autocmd!
    execute 'autocmd FileChangedShell <buffer=' . a:buf . '> call s:file_changed(+expand("<abuf>"))'
  augroup END
  try
    silent! execute 'checktime' a:buf
  finally
    augroup TandemReload
      autocmd!
    augroup END
  endtry
  return s:outcome
endfunction

function! s:file_changed(buf) abort
  if v:fcs_reason ==# 'deleted' || v:fcs_reason ==# 'conflict' || getbufvar(a:buf, '&modified')
    let v:fcs_choice = ''
    let s:outcome = 'kept'
  else
    let v:fcs_choice = 'reload'
    let s:outcome = 'reloaded'
  endif
endfunction

" Reloads the buffer of {path} after each change on disk, until the changes settle. Call it
" before the CLI can write.
function! s:Reload.after_write(path) abort
  call self.cancel(a:path)
  let watch = {'started': reltime(), 'changed': v:null}
  let reload = self
  let watch.timer = timer_start(s:INTERVAL, {-> reload.tick(a:path, watch)}, {'repeat': -1})
  let self.watches[a:path] = watch
endfunction

function! s:Reload.tick(path, watch) abort
  let buf = tandem#buffers#for_file(a:path)
  let outcome = buf > 0 ? s:check(buf) : ''
  if outcome !=# ''
    let a:watch.changed = reltime()
  endif
  if outcome ==# 'kept'
    call self.log.warn(fnamemodify(a:path, ':~:.') . ' changed on disk, and its buffer has'
          \ . ' unsaved changes that were kept: :e! loads the new text, :w keeps yours')
  endif
  if a:watch.changed isnot v:null
    let done = reltimefloat(reltime(a:watch.changed)) > s:SETTLE
  else
    let done = reltimefloat(reltime(a:watch.started)) > s:GIVE_UP
  endif
  if done
    call self.cancel(a:path)
  endif
endfunction

function! s:Reload.cancel(path) abort
  if has_key(self.watches, a:path)
    call timer_stop(remove(self.watches, a:path).timer)
  endif
endfunction

function! s:Reload.cancel_all() abort
  for path in keys(self.watches)
    call self.cancel(path)
  endfor
endfunction
