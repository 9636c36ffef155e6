" Diff views. Each proposed edit opens in a tab of its own: the file on disk on one side, the
" proposal (an editable scratch buffer) on the other. Every view ends with exactly one outcome,
" whatever closes it: accepted, rejected, or closed by the CLI.
"
" A view is 'open', then 'answering' while the sidecar takes the user's answer (the view stays
" on screen, so that an answer the sidecar refuses leaves the user where they were), then
" 'done'.

let s:Diffs = {}
" The views, by serial, for their autocommands and mappings (which can only name them).
let s:views = {}
let s:serial = 0

" {options}: 'config' (the settings), 'log', and 'answer'(view, outcome, content, Done): sends
" 'accepted' (with the final text) or 'rejected', then calls Done(error), error being v:null
" or the sidecar's refusal {message, gone} (gone: the diff is not open there any more).
function! tandem#diff#new(options) abort
  return extend(copy(s:Diffs), {'config': a:options.config, 'log': a:options.log,
        \ 'answer': a:options.answer, 'views': {}, 'closing': {}})
endfunction

" {path} as the user reads it from Vim's folder, except that a name starting with ~ that is not
" in the home folder (a folder named ~ in the workspace) gets ./ before it: read, or given to
" :file, it would mean the home folder.
function! s:short_name(path) abort
  let name = fnamemodify(a:path, ':~:.')
  return name[0] ==# '~' && name !=# fnamemodify(a:path, ':~') ? './' . name : name
endfunction

" `name`, or `name (2)`, `name (3)`... when another buffer has it (two diffs of one file).
function! s:unique_name(name) abort
  let candidate = a:name
  let n = 1
  while bufexists(candidate)
    let n += 1
    let candidate = printf('%s (%d)', a:name, n)
  endwhile
  return candidate
endfunction

" Makes the current window's buffer a scratch buffer named {name} holding {lines}.
function! s:fill(name, lines, buftype) abort
  let &l:buftype = a:buftype
  " The text is the CLI's (or a file's), not the user's: its modelines set nothing.
  setlocal bufhidden=wipe noswapfile nobuflisted undolevels=-1 nomodeline
  silent execute 'file' fnameescape(s:unique_name(a:name))
  if !empty(a:lines)
    call setline(1, a:lines)
  endif
  setlocal undolevels< nomodified
  return bufnr('%')
endfunction

" The CLI that proposes, as the engine names it.
function! s:client_name(diff) abort
  return a:diff.client isnot v:null ? get(a:diff.client, 'name', 'Proposal') . '' : 'Proposal'
endfunction

function! s:statusline(text) abort
  return substitute(a:text, '%', '%%', 'g')
endfunction

" How to answer, short enough for half a screen: ':w or <leader>da'.
function! s:gestures(key, command) abort
  return a:key ==# '' ? a:command : a:command . ' or ' . a:key
endfunction

function! s:map(config) abort
  if a:config.accept_key !=# ''
    execute 'nnoremap <buffer> <silent> <nowait>' a:config.accept_key ':<C-U>TandemAccept<CR>'
  endif
  if a:config.reject_key !=# ''
    execute 'nnoremap <buffer> <silent> <nowait>' a:config.reject_key ':<C-U>TandemReject<CR>'
  endif
endfunction

" Shows {diff}: {id, path, old, new, client}, old v:null for a new file. Throws an error (the
" reply to the CLI) when it cannot.
function! s:Diffs.open(diff) abort
  let [id, path, old, new] = [a:diff.id, a:diff.path, a:diff.old, a:diff.new]
  if has_key(self.views, id)
    throw 'a diff with id ' . id . ' is already open'
  endif
  let s:serial += 1
  let name = s:short_name(path)
  let source = tandem#buffers#for_file(path)
  let [new_lines, shape] = tandem#text#to_lines(new)
  let view = {'id': id, 'path': path, 'name': name, 'proposed': new, 'serial': s:serial, 'shape': shape, 'state': 'open',
        \ 'closed': 0, 'origin_win': win_getid(), 'left_win': 0, 'right_win': 0,
        \ 'left_buf': -1, 'right_buf': -1, 'diffs': self}
  let s:views[view.serial] = view
  try
    tabnew
    let view.left_win = win_getid()
    " Named as a tab label shows them: 'src/stats.js (on disk)', 'src/stats.js (Gemini CLI)'.
    let view.left_buf = s:fill(name . (old is v:null ? ' (new file)' : ' (on disk)'),
          \ old is v:null ? [] : tandem#text#to_lines(old)[0], 'nofile')
    setlocal nomodifiable
    call s:map(self.config)
    execute (self.config.layout ==# 'vertical' ? 'rightbelow vnew' : 'rightbelow new')
    let view.right_win = win_getid()
    let view.right_buf = s:fill(name . ' (' . s:client_name(a:diff) . ')', new_lines, 'acwrite')
    call s:map(self.config)

    let filetype = source > 0 ? getbufvar(source, '&filetype') : ''
    if filetype !=# ''
      let &l:filetype = filetype
    elseif exists('#filetypedetect')
      silent! execute 'doautocmd filetypedetect BufRead' fnameescape(path)
    endif
    if &l:filetype !=# ''
      call setbufvar(view.left_buf, '&filetype', &l:filetype)
    endif
    call win_execute(view.left_win, 'diffthis')
    diffthis

    let warning = ''
    if source > 0 && getbufvar(source, '&modified')
      let warning = name . ' has unsaved changes in Vim: this side shows the file on disk;'
            \ . ' your changes stay in their buffer'
      call self.log.warn(warning)
    endif
    call setwinvar(view.left_win, '&statusline', s:statusline((old is v:null ? 'New file: ' : 'On disk: ') . name)
          \ . (warning ==# '' ? '' : '  %#WarningMsg#' . s:statusline(warning) . '%*'))
    let client = s:client_name(a:diff)
    call setwinvar(view.right_win, '&statusline', s:statusline(printf('%s · accept: %s · reject: %s',
          \ client, s:gestures(self.config.accept_key, ':w'), s:gestures(self.config.reject_key, ':q'))))
    call s:watch(view)
  catch
    let view.state = 'done'
    call s:teardown(view)
    throw 'cannot show the diff: ' . substitute(v:exception, '^Vim\%((\a\+)\)\=:', '', '')
  endtry
  let self.views[id] = view
  call self.log.debug('showing diff ' . id . ' for ' . path)
endfunction

" Any way a side of the view goes away (:q, :close, :tabclose, :bwipeout, :e other in it...)
" is a rejection, unless the view already has its outcome.
function! s:watch(view) abort
  let event = 'call tandem#diff#event(' . a:view.serial . ', '
  execute 'augroup TandemDiff' . a:view.serial
    autocmd!
    execute 'autocmd BufWriteCmd <buffer=' . a:view.right_buf . '>' event . '"write", expand("<amatch>"))'
    for buf in [a:view.left_buf, a:view.right_buf]
      execute 'autocmd BufWipeout <buffer=' . buf . '>' event . '"closed", "")'
    endfor
    if exists('##WinClosed')
      for win in [a:view.left_win, a:view.right_win]
        execute 'autocmd WinClosed' win event . '"closed", "")'
      endfor
    endif
    execute 'autocmd TabClosed *' event . '"tab", "")'
  augroup END
endfunction

" An autocommand of view {serial}.
function! tandem#diff#event(serial, event, file) abort
  let view = get(s:views, a:serial, {})
  if empty(view) || view.state ==# 'done'
    return
  endif
  if a:event ==# 'write'
    if fnamemodify(a:file, ':p') !=# fnamemodify(bufname(view.right_buf), ':p')
      call view.diffs.log.error('this buffer is a proposal: :w accepts it, it cannot be written elsewhere')
    elseif view.diffs.accept(view.id)
      call setbufvar(view.right_buf, '&modified', 0)
    endif
  elseif a:event ==# 'closed' || (a:event ==# 'tab'
        \ && (win_id2tabwin(view.left_win) == [0, 0] || win_id2tabwin(view.right_win) == [0, 0]))
    call view.diffs.closed(view)
  endif
endfunction

" A side of {view} went away: the rest of it goes too, and the CLI hears a rejection unless an
" answer is already on its way.
function! s:Diffs.closed(view) abort
  let a:view.closed = 1
  if a:view.state ==# 'open'
    call self.send(a:view, 'rejected', v:null)
  endif
  call s:later_teardown(a:view)
endfunction

function! s:Diffs.proposal(view) abort
  let lines = getbufline(a:view.right_buf, 1, '$')
  " An emptied buffer (`ggdG`: "--No lines in buffer--") is the empty text, not one newline.
  if lines == [''] && win_id2tabwin(a:view.right_win) != [0, 0]
    call win_execute(a:view.right_win, 'let s:bytes = wordcount().bytes')
    if s:bytes == 0
      return ''
    endif
  endif
  return tandem#text#from_lines(lines, a:view.shape)
endfunction

function! s:Diffs.send(view, outcome, content) abort
  let a:view.state = 'answering'
  let diffs = self
  call self.answer(a:view, a:outcome, a:content,
        \ {error -> diffs.answered(a:view, a:outcome, error)})
endfunction

" The sidecar took the answer (or says the diff is gone): the view ends. It refused it: the
" view stays, and the user reads why; a view already closed gets a rejection instead.
function! s:Diffs.answered(view, outcome, error) abort
  if a:view.state !=# 'answering'
    return
  endif
  if a:error is v:null || a:error.gone
    call self.finish(a:view)
    return
  endif
  let a:view.state = 'open'
  call self.log.error(printf('the CLI did not take the answer: %s', a:error.message))
  if a:view.closed
    if a:outcome ==# 'rejected'
      call self.finish(a:view)
    else
      call self.send(a:view, 'rejected', v:null)
    endif
  elseif a:outcome ==# 'accepted'
    call setbufvar(a:view.right_buf, '&modified', 1)
  endif
endfunction

function! s:Diffs.finish(view) abort
  let a:view.state = 'done'
  if has_key(self.views, a:view.id)
    call remove(self.views, a:view.id)
  endif
  call s:later_teardown(a:view)
endfunction

" Windows cannot close inside the autocommands that report them closing: close them next.
function! s:later_teardown(view) abort
  if !get(a:view, 'teardown_due', 0)
    let a:view.teardown_due = 1
    call timer_start(0, {-> s:teardown(a:view)})
  endif
endfunction

function! s:teardown(view) abort
  if a:view.state ==# 'done' && has_key(s:views, a:view.serial)
    call remove(s:views, a:view.serial)
  endif
  execute 'augroup TandemDiff' . a:view.serial
    autocmd!
  augroup END
  execute 'augroup! TandemDiff' . a:view.serial
  let current = win_getid()
  let was_current = index([a:view.left_win, a:view.right_win], current) >= 0
  for win in [a:view.right_win, a:view.left_win]
    if win_gotoid(win)
      try
        close!
      catch
        " The last window of Vim cannot close: give it an empty buffer instead.
        diffoff
        enew
      endtry
    endif
  endfor
  for buf in [a:view.right_buf, a:view.left_buf]
    if buf > 0 && bufexists(buf)
      silent! execute 'bwipeout!' buf
    endif
  endfor
  " Back where the user was: where the diff came from if they were in it, else where they are.
  if !(was_current && win_gotoid(a:view.origin_win))
    call win_gotoid(current)
  endif
endfunction

" The view {id} names; without an id, the view in the current tab, or the only one open.
function! s:Diffs.find(id) abort
  if a:id isnot v:null
    return get(self.views, a:id, {})
  endif
  let tab = tabpagenr()
  for view in values(self.views)
    if win_id2tabwin(view.right_win)[0] == tab || win_id2tabwin(view.left_win)[0] == tab
      return view
    endif
  endfor
  return len(self.views) == 1 ? values(self.views)[0] : {}
endfunction

function! s:Diffs.require(id) abort
  let view = self.find(a:id)
  if empty(view)
    throw 'no Tandem diff here: run this in a diff tab'
  endif
  return view
endfunction

" Returns 1 when the answer was sent, 0 while an earlier one is on its way.
function! s:Diffs.accept(...) abort
  let view = self.require(get(a:, 1, v:null))
  if view.state !=# 'open'
    call self.log.warn('waiting for the CLI to take the answer')
    return 0
  endif
  call self.send(view, 'accepted', self.proposal(view))
  return 1
endfunction

function! s:Diffs.reject(...) abort
  let view = self.require(get(a:, 1, v:null))
  if view.state ==# 'open'
    call self.send(view, 'rejected', v:null)
  endif
endfunction

" Keeps {content} in a listed scratch buffer named after {view}'s file, for the user to copy
" from; returns it.
function! s:keep(view, content) abort
  let buf = bufadd(s:unique_name(a:view.name . ' (your edits)'))
  for [option, value] in [['buftype', 'nofile'], ['bufhidden', 'hide'], ['swapfile', 0],
        \ ['buflisted', 1], ['modeline', 0]]
    call setbufvar(buf, '&' . option, value)
  endfor
  call bufload(buf)
  call setbufline(buf, 1, tandem#text#to_lines(a:content)[0])
  call setbufvar(buf, '&filetype', a:view.filetype)
  return buf
endfunction

" Closes a view on the CLI's request, without an answer; returns [the proposal's text, view].
" What the user is told follows in told().
function! s:Diffs.close(id) abort
  let view = index([v:t_string, v:t_number], type(a:id)) >= 0 ? get(self.views, a:id, {}) : {}
  if empty(view)
    throw 'no open diff with id ' . string(a:id)
  endif
  let content = self.proposal(view)
  let self.closing[view.id] = {'name': view.name,
        \ 'filetype': getbufvar(view.right_buf, '&filetype')}
  call self.finish(view)
  return [content, view]
endfunction

" What the engine says of a view the CLI closed (see bridge.vim): its message, and the user's
" edits that reach no file, kept in a buffer of their own (the user is told where).
function! s:Diffs.told(notice) abort
  let view = has_key(self.closing, a:notice.id) ? remove(self.closing, a:notice.id)
        \ : {'name': s:short_name(a:notice.path), 'filetype': ''}
  let why = a:notice.message
  if a:notice.kept_text isnot v:null
    " Where first: the line may be cut to fit the screen.
    let why = printf(':buffer %d holds your edits to %s. %s', s:keep(view, a:notice.kept_text),
          \ view.name, why)
  endif
  call self.log.tell('info', why)
endfunction

" Ends every view. With {answer}, each open one gets a rejection; with {keep_windows} (Vim is
" quitting) the windows are left alone.
function! s:Diffs.end_all(answer, keep_windows) abort
  for view in values(self.views)
    if a:answer && view.state ==# 'open'
      call self.answer(view, 'rejected', v:null, {error -> 0})
    endif
    let view.state = 'done'
    if a:keep_windows
      call remove(s:views, view.serial)
    else
      call s:teardown(view)
    endif
  endfor
  let self.views = {}
endfunction

function! s:Diffs.list() abort
  return map(sort(values(self.views), {a, b -> a.serial - b.serial}),
        \ {_, view -> {'id': view.id, 'path': view.path, 'buffer': view.right_buf}})
endfunction
