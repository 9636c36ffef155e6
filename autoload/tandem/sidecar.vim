" Which `tandem` command runs, and Tandem's version. The command is g:tandem_command when set,
" else the one built in the plugin's folder (`npm run build` or `npm run build:sidecar` there), else the
" `tandem` on the PATH.

let s:ROOT = expand('<sfile>:p:h:h:h')
let s:NOT_FOUND = 'no `tandem` command: run `npm run build:sidecar` in %s, or put a `tandem` on'
      \ . ' the PATH; g:tandem_command names another (see :help tandem-vim-install)'

" The plugin's root: the repository that holds plugin/, autoload/, package.json and packages/.
function! tandem#sidecar#root() abort
  return s:ROOT
endfunction

" The sidecar script built in the plugin's folder.
function! tandem#sidecar#script() abort
  return s:ROOT . '/packages/cli/dist/tandem.js'
endfunction

" The plugin's version (the repository's one version), or v:null when its package.json is gone.
function! tandem#sidecar#version() abort
  try
    return json_decode(join(readfile(s:ROOT . '/package.json'), "\n")).version
  catch
    return v:null
  endtry
endfunction

" The `tandem` command of {config} as a list (like ['tandem']), or v:null when there is none.
function! tandem#sidecar#tandem(config) abort
  if a:config.command isnot v:null
    return a:config.command
  elseif filereadable(tandem#sidecar#script())
    return [a:config.node, tandem#sidecar#script()]
  endif
  let on_path = exepath('tandem')
  return empty(on_path) ? v:null : [on_path]
endfunction

" The command that starts the sidecar with {config}, or v:null when there is no `tandem`.
function! tandem#sidecar#command(config) abort
  if a:config.cmd isnot v:null
    return a:config.cmd
  endif
  let tandem = tandem#sidecar#tandem(a:config)
  return tandem is v:null ? v:null : tandem + ['bridge']
endfunction

" The command that runs `tandem`'s command {args} (like ['doctor']); throws without one.
function! tandem#sidecar#tool(config, args) abort
  let tandem = tandem#sidecar#tandem(a:config)
  if tandem is v:null
    throw printf(s:NOT_FOUND, s:ROOT)
  endif
  return tandem + a:args
endfunction

" Why the sidecar of {config} cannot start, or ''.
function! tandem#sidecar#problem(config) abort
  let cmd = tandem#sidecar#command(a:config)
  if cmd is v:null
    return printf(s:NOT_FOUND, s:ROOT)
  endif
  if !executable(cmd[0])
    return printf('cannot start the sidecar: `%s` is not an executable', cmd[0])
  endif
  return ''
endfunction
