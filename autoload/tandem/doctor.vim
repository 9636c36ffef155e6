" :TandemDoctor's report and :TandemEnv's line, both from the built `tandem` command.

let s:REPORT = 'tandem://doctor'

" Runs `tandem doctor` for Vim's folder, then shows its report in a scratch window. The job
" inherits the session's variables, so the report is about what a CLI started from Vim finds.
function! tandem#doctor#run(config) abort
  let cmd = tandem#sidecar#tool(a:config, ['doctor', '--cwd', getcwd()])
  if !executable(cmd[0])
    throw printf('`%s` is not an executable (see g:tandem_node)', cmd[0])
  endif
  let report = []
  call job_start(cmd,
        \ {'in_io': 'null', 'err_io': 'out',
        \ 'out_cb': {_, line -> add(report, line)},
        \ 'close_cb': {_ -> s:show_report(report)}})
endfunction

function! s:show_report(lines) abort
  if bufexists(s:REPORT)
    silent execute 'bwipeout' bufnr(s:REPORT)
  endif
  botright new
  setlocal buftype=nofile bufhidden=wipe noswapfile nobuflisted
  silent execute 'file' s:REPORT
  call setline(1, a:lines)
  setlocal nomodifiable nomodified
endfunction

" One word that a POSIX shell, or fish when {fish}, reads back exactly (the rule of the
" command's shell-quote.ts): inside fish's single quotes, a backslash escapes.
function! s:shell_word(word, fish) abort
  if a:word =~# '^[A-Za-z0-9@%+=:,./_-]\+$'
    return a:word
  endif
  if a:fish
    return "'" . substitute(a:word, "[\\\\']", '\\&', 'g') . "'"
  endif
  return "'" . substitute(a:word, "'", "'\\\\''", 'g') . "'"
endfunction

" The line that connects a CLI in another terminal to this Vim, to paste there: quoted for the
" shell the user pastes into ($SHELL), not for Vim's 'shell'. `eval "$(… env --cwd DIR)"`, or
" for fish `… env --cwd DIR --shell fish | source`.
function! tandem#doctor#env_line(config) abort
  let fish = $SHELL =~# 'fish$'
  let argv = tandem#sidecar#tool(a:config,
        \ ['env', '--cwd', getcwd()] + (fish ? ['--shell', 'fish'] : []))
  let command = join(map(argv, {_, word -> s:shell_word(word, fish)}), ' ')
  return fish ? command . ' | source' : printf('eval "$(%s)"', command)
endfunction
