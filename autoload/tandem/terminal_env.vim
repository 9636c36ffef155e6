" The variables the sidecar gives for terminals, in Vim's own environment: every terminal
" opened from then on inherits them, so a CLI started there connects to this Vim.

let s:TerminalEnv = {}

function! tandem#terminal_env#new() abort
  return extend(copy(s:TerminalEnv), {'values': {}})
endfunction

" Replaces the variables set before with {env} (name -> value).
function! s:TerminalEnv.set(env) abort
  call self.clear()
  for [name, value] in items(a:env)
    let value = type(value) == v:t_string ? value : string(value)
    call setenv(name, value)
    let self.values[name] = value
  endfor
endfunction

" Removes every variable set here.
function! s:TerminalEnv.clear() abort
  for name in keys(self.values)
    call setenv(name, v:null)
  endfor
  let self.values = {}
endfunction

" The variables set now (name -> value).
function! s:TerminalEnv.get() abort
  return copy(self.values)
endfunction
