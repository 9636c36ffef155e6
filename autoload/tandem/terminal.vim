" :Tandem {cli}: a CLI in a terminal window. It inherits Vim's environment, which holds what
" the sidecar told it, so the CLI connects to this Vim.

" The names of the CLIs :Tandem knows, sorted.
function! tandem#terminal#names(config) abort
  return sort(keys(a:config.clis))
endfunction

" Opens CLI {name} with extra {args} in a new window made by the 'split' setting.
function! tandem#terminal#open(config, name, args) abort
  if !has_key(a:config.clis, a:name)
    throw printf('unknown CLI "%s": :Tandem takes one of %s', a:name,
          \ join(tandem#terminal#names(a:config), ', '))
  endif
  let argv = a:config.clis[a:name] + a:args
  if !executable(argv[0])
    throw printf('`%s` is not installed or not on PATH', argv[0])
  endif
  execute a:config.split
  call term_start(argv, {'curwin': 1})
endfunction
