" Whole-file text <-> buffer lines, keeping what lines lose: the final newline and CRLF endings.

" Returns [lines, shape]; shape is {'eol': 0|1, 'crlf': 0|1}.
function! tandem#text#to_lines(text) abort
  let text = a:text
  let crlf = stridx(text, "\r\n") >= 0 && stridx(substitute(text, "\r\n", '', 'g'), "\n") < 0
  if crlf
    let text = substitute(text, "\r\n", "\n", 'g')
  endif
  let eol = text[-1:] ==# "\n"
  if eol
    let text = text[: -2]
  endif
  return [split(text, "\n", 1), {'eol': eol, 'crlf': crlf}]
endfunction

function! tandem#text#from_lines(lines, shape) abort
  let separator = a:shape.crlf ? "\r\n" : "\n"
  return join(a:lines, separator) . (a:shape.eol ? separator : '')
endfunction
