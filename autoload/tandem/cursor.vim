vim9script
# The cursor of the focused file and its selection, sent when they changed: the path every key
# takes, compiled. Cursor events only start a timer: the look happens once per quiet moment,
# never once per key.

import autoload 'tandem/selection.vim'

const CURSOR_DELAY = 50

# The context followed (see context.vim: {open, focused, last_cursor, bridge, selection_chars}),
# {} when none; the timer of its next look and when it last looked.
var followed: dict<any> = {}
var timer = -1
var looked = reltime()

# Where the cursor is in {line}, in characters from 1, given Vim's byte column {col}.
export def Character(line: string, col: number): number
  return strchars(strpart(line, 0, col - 1)) + 1
enddef

# Sends the cursor of the current window if it shows the focused file of {context} and moved
# since the last message. The comparison key is built from cheap values only; the selected text
# is read just when the key changed.
export def Send(context: dict<any>)
  var path: string = get(context.open, string(bufnr('%')), '')
  if path == '' || path != context.focused
    return
  endif
  var mode = mode()
  var visual = selection.Kind(mode)
  var key: list<any> = visual == '' ? [path, line('.'), col('.')]
    : [path, line('.'), col('.'), visual, getpos('v'), b:changedtick]
  if key == context.last_cursor
    return
  endif
  context.last_cursor = key
  var character = Character(getline('.'), key[2])
  if visual == ''
    context.bridge.cursor_changed(path, key[1], character, null, null)
    return
  endif
  # Where the selection began: the cursor is its other end.
  var v: list<number> = key[4]
  var anchor = {line: v[1], character: Character(getline(v[1]), v[2])}
  context.bridge.cursor_changed(path, key[1], character,
    selection.Text(mode, context.selection_chars), anchor)
enddef

# A look at the cursor comes at most once per gathering delay: right after a move when the last
# look is older than that, else from a timer at the end of the delay, so that a burst of keys
# costs one look.
def Moved()
  if timer != -1
    return
  endif
  var waited = float2nr(reltimefloat(reltime(looked)) * 1000)
  if waited >= CURSOR_DELAY
    Look(-1)
  else
    timer = timer_start(CURSOR_DELAY - waited, Look)
  endif
enddef

def Look(id: number)
  timer = -1
  looked = reltime()
  if !empty(followed)
    Send(followed)
  endif
enddef

# Starts looking at the cursor for {context} on every move, mode change and window change.
export def Follow(context: dict<any>)
  followed = context
  augroup TandemCursor
    autocmd!
    autocmd CursorMoved,CursorMovedI,WinEnter,ModeChanged * Moved()
  augroup END
enddef

# Stops following {context} (when it is the one followed).
export def Unfollow(context: dict<any>)
  if followed isnot context
    return
  endif
  followed = {}
  augroup TandemCursor
    autocmd!
  augroup END
  if timer != -1
    timer_stop(timer)
    timer = -1
  endif
enddef
