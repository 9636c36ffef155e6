" How a session's status reads to people: the status line, :TandemStatus, the CLIs' names.

function! s:text(value) abort
  return type(a:value) == v:t_string ? a:value : string(a:value)
endfunction

" The names of connected {clients}, as the engine labels them.
function! tandem#status#names(clients) abort
  return map(copy(a:clients), {_, client -> s:text(type(client) == v:t_dict ? get(client, 'name', '?') : '?')})
endfunction

" A connected CLI as people name it: its name, and its version when the engine knows it.
function! tandem#status#client_label(client) abort
  return s:text(get(a:client, 'name', '?'))
        \ . (has_key(a:client, 'version') ? ' ' . s:text(a:client.version) : '')
endfunction

" A warning of the engine as one line: what goes wrong, then what to do.
function! tandem#status#warning_text(warning) abort
  return a:warning.message . (a:warning.fix is v:null ? '' : ' ' . a:warning.fix)
endfunction

" A short text for a status line: '' when stopped.
function! tandem#status#line(status) abort
  if a:status.state ==# 'running'
    return 'Tandem: ' . (empty(a:status.clients) ? 'no CLI' : join(tandem#status#names(a:status.clients), ', '))
  elseif a:status.state ==# 'starting'
    return 'Tandem: starting'
  elseif a:status.state ==# 'failed'
    return 'Tandem: failed'
  endif
  return ''
endfunction

" Echoes what :TandemStatus shows.
function! tandem#status#print(status) abort
  let s = a:status
  echo printf('Tandem %s: %s', s.version is v:null ? '' : s.version, s.state)
        \ . (s.pid isnot v:null ? ' (sidecar pid ' . s.pid . ')' : '')
  if s.error isnot v:null
    echohl ErrorMsg | echo 'Error: ' . s.error | echohl None
  endif
  if s.command isnot v:null
    echo 'Sidecar: ' . join(s.command)
  endif
  if s.port isnot v:null
    echo 'Port: ' . s.port
  endif
  echo 'Workspace: ' . join(s.workspace_folders, ', ')
  let clients = map(copy(s.clients), {_, client -> tandem#status#client_label(client)})
  echo 'Connected CLIs: ' . (empty(clients) ? 'none' : join(clients, ', '))
  for warning in s.warnings
    echohl WarningMsg | echo 'Warning: ' . tandem#status#warning_text(warning) | echohl None
  endfor
  echo 'Discovery files:' . (empty(s.discovery_files) ? ' none' : '')
  for file in s.discovery_files
    echo '  ' . file
  endfor
  for diff in s.diffs
    echo 'Open diff: ' . diff.path
  endfor
  echo 'Log: ' . s.log_file
endfunction
