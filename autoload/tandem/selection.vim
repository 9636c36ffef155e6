" The text selected in the current window's Visual (or Select) mode: charwise, linewise or
" blockwise. Reads at most {limit} characters, so a huge selection costs no more than a small one.

let s:KINDS = {'v': 'v', 'V': 'V', "\<C-V>": "\<C-V>", 's': 'v', 'S': 'V', "\<C-S>": "\<C-V>"}
let s:CHUNK = 256
let s:MAXCOL = 2147483647
" The last charwise or linewise selection read, for a look at the same selection's start.
let s:last = {'key': [], 'read': 0, 'text': ''}

" The kind of the Visual selection of {mode} ('v', 'V' or CTRL-V), or '' outside Visual mode.
function! tandem#selection#kind(mode) abort
  return get(s:KINDS, a:mode[0], '')
endfunction

" A character takes at most 4 bytes in UTF-8.
let s:CHARACTER_BYTES = 4

" Lines {first}..{last} through {Take}(line, row), joined by newlines: their first {limit}
" characters (all when fewer), and the last row read for them. With {edges}, only the first
" and the last line go through {Take}, the others are whole: a chunk of them is joined at once,
" which keeps a huge selection cheap.
function! s:collect(first, last, limit, Take, edges) abort
  let parts = []
  let size = 0
  let row = a:first
  " Lines are read until {limit} bytes: enough unless some characters take more than one byte,
  " then until the most {limit} characters can take.
  for bytes in [a:limit, a:limit * s:CHARACTER_BYTES]
    while row <= a:last && size < bytes
      let chunk_last = min([a:last, row + s:CHUNK - 1])
      let lines = getline(row, chunk_last)
      if a:edges
        if row == a:first
          let lines[0] = a:Take(lines[0], row)
        endif
        if chunk_last == a:last && !(row == a:first && len(lines) == 1)
          let lines[-1] = a:Take(lines[-1], a:last)
        endif
        let piece = join(lines, "\n")
        call add(parts, piece)
        let size += len(piece) + 1
        let row = chunk_last + 1
        continue
      endif
      for line in lines
        let piece = a:Take(line, row)
        call add(parts, piece)
        let size += len(piece) + 1
        let row += 1
        if size >= bytes
          break
        endif
      endfor
    endwhile
    let text = join(parts, "\n")
    let cut = byteidxcomp(text, a:limit)
    if cut >= 0 || row > a:last
      return [cut >= 0 ? strpart(text, 0, cut) : text, row - 1]
    endif
  endfor
  return [text, row - 1]
endfunction

" Byte length of the character that starts at byte {col} (1-based) of {line}.
function! s:char_length(line, col) abort
  return max([1, len(strcharpart(strpart(a:line, a:col - 1), 0, 1))])
endfunction

" The characters of {line} that start between screen columns {left} and {right} (1-based).
function! s:columns(line, left, right) abort
  let out = []
  let col = 1
  for char in split(a:line, '\zs')
    if col > a:right
      break
    endif
    if col >= a:left
      call add(out, char)
    endif
    let col += char ==# "\t" ? &tabstop - (col - 1) % &tabstop : strdisplaywidth(char)
  endfor
  return join(out, '')
endfunction

" The screen column where the character at byte {col} of line {row} starts.
function! s:start_column(row, col) abort
  return a:col <= 1 ? 1 : virtcol([a:row, a:col - 1]) + 1
endfunction

" The selected text in the current window for {mode}, or v:null outside Visual mode.
function! tandem#selection#text(mode, limit) abort
  let kind = tandem#selection#kind(a:mode)
  if kind ==# ''
    return v:null
  endif
  let a = getpos('v')
  let b = getpos('.')
  if a[1] > b[1] || (a[1] == b[1] && a[2] > b[2])
    let [a, b] = [b, a]
  endif
  if kind ==# 'V' || kind ==# 'v'
    " The same start in the same text, and the end beyond the rows the limit was reached in
    " last time: the same text (a selection growing or shrinking at its end).
    let key = [bufnr('%'), b:changedtick, kind, a, a:limit]
    if key == s:last.key && b[1] > s:last.read
      return s:last.text
    endif
    if kind ==# 'V'
      let [text, read] = s:collect(a[1], b[1], a:limit, {line, row -> line}, 1)
    else
      let [first, last] = [a[1], b[1]]
      let [text, read] = s:collect(first, last, a:limit, {line, row ->
            \ strpart(line, row == first ? a[2] - 1 : 0,
            \   row == last ? b[2] - 1 + s:char_length(line, b[2]) - (row == first ? a[2] - 1 : 0) : len(line))},
            \ 1)
    endif
    let s:last = {'key': key, 'read': read < b[1] ? read : s:MAXCOL, 'text': text}
    return text
  endif
  let left = min([s:start_column(a[1], a[2]), s:start_column(b[1], b[2])])
  let right = max([virtcol([a[1], a[2]]), virtcol([b[1], b[2]])])
  if winsaveview().curswant >= s:MAXCOL
    let right = s:MAXCOL
  endif
  return s:collect(a[1], b[1], a:limit, {line, row -> s:columns(line, left, right)}, 0)[0]
endfunction
