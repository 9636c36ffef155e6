" The g:tandem_* settings, their defaults and their validation.

" Claude Code writes edits without asking in its newest default mode; this mode asks, so its
" edits open as diffs here.
function! s:default_clis() abort
  return {'gemini': ['gemini'], 'qwen': ['qwen'],
        \ 'claude': ['claude', '--permission-mode', 'default']}
endfunction

function! s:default_log_file() abort
  let cache = empty($XDG_CACHE_HOME) ? expand('~/.cache') : $XDG_CACHE_HOME
  return cache . '/vim/tandem.log'
endfunction

function! s:is_string_list(value) abort
  return type(a:value) == v:t_list && !empty(a:value)
        \ && empty(filter(copy(a:value), {_, item -> type(item) != v:t_string}))
endfunction

" Throws "g:tandem_{name}: expected ..." unless {valid}.
function! s:check(name, value, valid, expected) abort
  if !a:valid
    throw printf('g:tandem_%s: expected %s, got %s', a:name, a:expected, string(a:value))
  endif
endfunction

" The settings now, with the defaults for those not set. Throws a readable error for a bad one.
function! tandem#config#resolve() abort
  let config = {
        \ 'autostart': get(g:, 'tandem_autostart', 1),
        \ 'command': get(g:, 'tandem_command', v:null),
        \ 'cmd': get(g:, 'tandem_cmd', v:null),
        \ 'node': get(g:, 'tandem_node', 'node'),
        \ 'log_level': get(g:, 'tandem_log_level', 'warn'),
        \ 'log_file': get(g:, 'tandem_log_file', s:default_log_file()),
        \ 'layout': get(g:, 'tandem_diff_layout', 'vertical'),
        \ 'accept_key': get(g:, 'tandem_accept_key', '<leader>da'),
        \ 'reject_key': get(g:, 'tandem_reject_key', '<leader>dr'),
        \ 'split': get(g:, 'tandem_terminal_split', 'botright vsplit'),
        \ 'clis': extend(s:default_clis(), get(g:, 'tandem_clis', {})),
        \ }
  call s:check('autostart', config.autostart, index([0, 1, v:true, v:false], config.autostart) >= 0, '0 or 1')
  call s:check('command', config.command, config.command is v:null || s:is_string_list(config.command),
        \ "a list of strings, like ['tandem']")
  call s:check('cmd', config.cmd, config.cmd is v:null || s:is_string_list(config.cmd),
        \ "a list of strings, like ['tandem', 'bridge']")
  call s:check('node', config.node, type(config.node) == v:t_string, 'a string')
  call s:check('log_level', config.log_level,
        \ index(tandem#log#levels(), config.log_level) >= 0, "'debug', 'info', 'warn' or 'error'")
  call s:check('log_file', config.log_file, type(config.log_file) == v:t_string, 'a string')
  call s:check('diff_layout', config.layout, index(['vertical', 'horizontal'], config.layout) >= 0,
        \ "'vertical' or 'horizontal'")
  call s:check('accept_key', config.accept_key, type(config.accept_key) == v:t_string,
        \ "a key sequence, or '' for none")
  call s:check('reject_key', config.reject_key, type(config.reject_key) == v:t_string,
        \ "a key sequence, or '' for none")
  call s:check('terminal_split', config.split, type(config.split) == v:t_string, 'a string')
  for [name, cmd] in items(config.clis)
    call s:check('clis', cmd, s:is_string_list(cmd), 'a list of strings for ' . name)
  endfor
  let config.log_file = expand(config.log_file)
  return config
endfunction
