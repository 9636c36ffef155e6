" Where the sidecar is: the plugin's root, the built script, and the command that runs it.

let s:ROOT = expand('<sfile>:p:h:h:h')
let s:NOT_BUILT = 'the sidecar is not built: run `npm run build:sidecar` in %s'
      \ . ' (see :help tandem-vim-install)'

" The plugin's root: the repository that holds plugin/, autoload/ and packages/.
function! tandem#sidecar#root() abort
  return s:ROOT
endfunction

" The built sidecar script that the default command runs.
function! tandem#sidecar#script() abort
  return s:ROOT . '/packages/cli/dist/tandem.js'
endfunction

" The command that starts the sidecar with {config}.
function! tandem#sidecar#command(config) abort
  return a:config.cmd isnot v:null ? a:config.cmd
        \ : [a:config.node, tandem#sidecar#script(), 'bridge']
endfunction

" The command that runs the built script's command {args} (like ['doctor']) with {config}'s
" Node.js; throws when the script is not built.
function! tandem#sidecar#tool(config, args) abort
  if !filereadable(tandem#sidecar#script())
    throw printf(s:NOT_BUILT, s:ROOT)
  endif
  return [a:config.node, tandem#sidecar#script()] + a:args
endfunction

" Why the sidecar of {config} cannot start, or ''.
function! tandem#sidecar#problem(config) abort
  let cmd = tandem#sidecar#command(a:config)
  if a:config.cmd is v:null && !filereadable(cmd[1])
    return printf(s:NOT_BUILT, s:ROOT)
  endif
  if !executable(cmd[0])
    return printf('cannot start the sidecar: `%s` is not an executable', cmd[0])
  endif
  return ''
endfunction
