" Test-only: lets a test drive this Vim without typing. Every 30 ms, each request file
" request-<seq>.json in $TANDEM_TEST_DIR ({"seq": n, "expr": "..."} or {"seq": n, "command":
" "..."}) is run and its reply written to reply-<seq>.json ({"value": ...} or {"error": "..."}). Typed keys stay the
" test's way of acting as the user; this only reads state and sets things up.
let s:dir = $TANDEM_TEST_DIR

function! s:serve(timer) abort
  for request_file in glob(s:dir . '/request-*.json', 1, 1)
    call s:answer(request_file)
  endfor
endfunction

function! s:answer(request_file) abort
  let request_file = a:request_file
  let request = json_decode(join(readfile(request_file), "\n"))
  call delete(request_file)
  try
    if has_key(request, 'expr')
      let reply = {'value': eval(request.expr)}
    else
      call execute(request.command, 'silent!')
      let reply = {'value': v:null}
    endif
  catch
    let reply = {'error': v:exception}
  endtry
  let reply_file = s:dir . '/reply-' . request.seq . '.json'
  call writefile([json_encode(reply)], reply_file . '.part')
  call rename(reply_file . '.part', reply_file)
endfunction

" The windows of the current tab page, and how many tab pages there are.
function! TandemTestTab() abort
  let windows = []
  for win in gettabinfo(tabpagenr())[0].windows
    let buf = winbufnr(win)
    call add(windows, {'name': bufname(buf), 'diff': getwinvar(win, '&diff'),
          \ 'label': getwinvar(win, '&statusline'), 'filetype': getbufvar(buf, '&filetype'),
          \ 'buftype': getbufvar(buf, '&buftype'), 'modifiable': getbufvar(buf, '&modifiable'),
          \ 'lines': getbufline(buf, 1, '$'), 'current': win == win_getid() ? v:true : v:false})
  endfor
  return {'tabs': tabpagenr('$'), 'windows': windows, 'mode': mode()}
endfunction

call timer_start(30, function('s:serve'), {'repeat': -1})
