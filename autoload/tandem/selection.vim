vim9script
# The text selected in the current window's Visual (or Select) mode: charwise, linewise or
# blockwise. Reads at most {limit} characters, so a huge selection costs no more than a small one.
# Compiled: a look at the cursor reads it on every key of a selection.

const KINDS = {v: 'v', V: 'V', ["\<C-V>"]: "\<C-V>", s: 'v', S: 'V', ["\<C-S>"]: "\<C-V>"}
const CHUNK = 256
const MAXCOL = 2147483647
# A character takes at most 4 bytes in UTF-8.
const CHARACTER_BYTES = 4
# The last charwise or linewise selection read, for a look at the same selection's start.
var lastRead: dict<any> = {key: [], read: 0, text: ''}

# The kind of the Visual selection of {mode} ('v', 'V' or CTRL-V), or '' outside Visual mode.
export def Kind(mode: string): string
  return get(KINDS, mode[0], '')
enddef

# Lines {first}..{lastRow} through {Take}(line, row), joined by newlines: their first {limit}
# characters (all when fewer), and the last row read for them. With {edges}, only the first
# and the last line go through {Take}, the others are whole: a chunk of them is joined at once,
# which keeps a huge selection cheap.
def Collect(first: number, lastRow: number, limit: number, Take: func(string, number): string,
    edges: bool): list<any>
  var parts: list<string> = []
  var size = 0
  var row = first
  var text = ''
  # Lines are read until {limit} bytes: enough unless some characters take more than one byte,
  # then until the most {limit} characters can take.
  for bytes in [limit, limit * CHARACTER_BYTES]
    while row <= lastRow && size < bytes
      var chunkLast = min([lastRow, row + CHUNK - 1])
      var lines = getline(row, chunkLast)
      if edges
        if row == first
          lines[0] = Take(lines[0], row)
        endif
        if chunkLast == lastRow && !(row == first && len(lines) == 1)
          lines[-1] = Take(lines[-1], lastRow)
        endif
        var piece = join(lines, "\n")
        add(parts, piece)
        size += len(piece) + 1
        row = chunkLast + 1
        continue
      endif
      for line in lines
        var piece = Take(line, row)
        add(parts, piece)
        size += len(piece) + 1
        row += 1
        if size >= bytes
          break
        endif
      endfor
    endwhile
    text = join(parts, "\n")
    var cut = byteidxcomp(text, limit)
    if cut >= 0 || row > lastRow
      return [cut >= 0 ? strpart(text, 0, cut) : text, row - 1]
    endif
  endfor
  return [text, row - 1]
enddef

# Byte length of the character that starts at byte {col} (1-based) of {line}.
def CharLength(line: string, col: number): number
  return max([1, len(strcharpart(strpart(line, col - 1), 0, 1))])
enddef

# The characters of {line} that start between screen columns {left} and {right} (1-based).
def Columns(line: string, left: number, right: number): string
  var out: list<string> = []
  var col = 1
  for char in split(line, '\zs')
    if col > right
      break
    endif
    if col >= left
      add(out, char)
    endif
    col += char == "\t" ? &tabstop - (col - 1) % &tabstop : strdisplaywidth(char)
  endfor
  return join(out, '')
enddef

# The screen column where the character at byte {col} of line {row} starts.
def StartColumn(row: number, col: number): number
  return col <= 1 ? 1 : virtcol([row, col - 1]) + 1
enddef

# The selected text in the current window for {mode}, or null outside Visual mode.
export def Text(mode: string, limit: number): any
  var kind = Kind(mode)
  if kind == ''
    return null
  endif
  var a = getpos('v')
  var b = getpos('.')
  if a[1] > b[1] || (a[1] == b[1] && a[2] > b[2])
    [a, b] = [b, a]
  endif
  if kind == 'V' || kind == 'v'
    # The same start in the same text, and the end beyond the rows the limit was reached in
    # last time: the same text (a selection growing or shrinking at its end).
    var key = [bufnr('%'), b:changedtick, kind, a, limit]
    if key == lastRead.key && b[1] > lastRead.read
      return lastRead.text
    endif
    var [first, lastRow] = [a[1], b[1]]
    var taken: list<any>
    if kind == 'V'
      taken = Collect(first, lastRow, limit, (line: string, row: number): string => line, true)
    else
      taken = Collect(first, lastRow, limit, (line: string, row: number): string =>
        strpart(line, row == first ? a[2] - 1 : 0,
          row == lastRow ? b[2] - 1 + CharLength(line, b[2]) - (row == first ? a[2] - 1 : 0) : len(line)),
        true)
    endif
    lastRead = {key: key, read: taken[1] < lastRow ? taken[1] : MAXCOL, text: taken[0]}
    return taken[0]
  endif
  var left = min([StartColumn(a[1], a[2]), StartColumn(b[1], b[2])])
  var right = max([virtcol([a[1], a[2]]), virtcol([b[1], b[2]])])
  if winsaveview().curswant >= MAXCOL
    right = MAXCOL
  endif
  return Collect(a[1], b[1], limit, (line: string, row: number): string => Columns(line, left, right), false)[0]
enddef
