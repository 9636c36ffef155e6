" The bridge protocol (docs/bridge-protocol.md), spoken with the sidecar. The only file that
" knows its method names and the shape of their params: the rest of the plugin calls methods
" here and is called back with plain values.

" The version this plugin speaks: the one of the sidecar it ships with.
let s:PROTOCOL = {'min': '1.3', 'max': '1.3'}
" The error code of an answer for a diff that is not open any more (answered or closed).
let s:DIFF_NOT_OPEN = -32011
" Added to the sidecar's environment unless the user sets it: glibc then maps each large buffer
" on its own and gives it back once freed (docs/bridge-protocol.md, "Framing").
let s:ALLOCATOR = 'glibc.malloc.mmap_threshold=65536'

" What the sidecar's environment adds to Vim's. NODE_EXTRA_CA_CERTS is emptied: Node would read
" and parse those certificates as it starts, and the sidecar makes no TLS connection.
function! s:sidecar_env() abort
  return {'NODE_EXTRA_CA_CERTS': '',
        \ 'GLIBC_TUNABLES': exists('$GLIBC_TUNABLES') ? $GLIBC_TUNABLES : s:ALLOCATOR}
endfunction

let s:Bridge = {}

function! s:text(value) abort
  return type(a:value) == v:t_string ? a:value : string(a:value)
endfunction

function! s:dict_or_empty(value) abort
  return type(a:value) == v:t_dict ? a:value : {}
endfunction

function! s:list_or_empty(value) abort
  return type(a:value) == v:t_list ? a:value : []
endfunction

function! s:string_or_null(value) abort
  return type(a:value) == v:t_string ? a:value : v:null
endfunction

" What the user must know before a CLI silently does not do what they expect (the engine's
" warnings): {code, message, fix} each, fix v:null when there is none.
function! s:warnings_of(list) abort
  let warnings = []
  for warning in s:list_or_empty(a:list)
    if type(warning) == v:t_dict && type(get(warning, 'message')) == v:t_string
      call add(warnings, {'code': s:text(get(warning, 'code', '?')), 'message': warning.message,
            \ 'fix': s:string_or_null(get(warning, 'fix', v:null))})
    endif
  endfor
  return warnings
endfunction

" Starts the sidecar {cmd} (a list); throws when it cannot. {editor} holds the callbacks:
"   show_diff({id, path, old, new, client}) and close_diff(id) -> the proposal's text, both
"     throwing an error (the reply the sidecar gets) when they cannot.
"   diff_closed({id, path, message, kept_text}): after close_diff, the engine's words on why
"     the CLI closed the diff, and kept_text, the user's edits when those reach no file (else
"     v:null): to keep where they can take them.
"   clients_changed(clients), warnings_changed(warnings), env_changed(env),
"   diff_outcome({id, path, kind, message}): seconds after a close with reason 'terminal',
"     whether the CLI wrote the file.
"   log(line), exited(code).
function! tandem#bridge#start(cmd, editor) abort
  let bridge = extend(copy(s:Bridge), {'editor': a:editor})
  let bridge.cursor_changed = function('s:cursor_changed', [bridge])
  " The last selected text sent, and its JSON.
  let bridge.selection_sent = ['', '""']
  let bridge.rpc = tandem#rpc#start(a:cmd, {
        \ 'request': {method, params -> bridge.request(method, params)},
        \ 'notification': {method, params -> bridge.notification(method, params)},
        \ 'stderr': a:editor.log,
        \ 'exit': a:editor.exited,
        \ }, s:sidecar_env())
  return bridge
endfunction

function! s:Bridge.request(method, params) abort
  if type(a:params) != v:t_dict
    throw 'params must be an object'
  endif
  if a:method ==# 'diff/open'
    let [id, path, new] = [get(a:params, 'id', v:null), get(a:params, 'filePath', v:null),
          \ get(a:params, 'newContent', v:null)]
    if index([v:t_string, v:t_number], type(id)) < 0 || type(path) != v:t_string
          \ || type(new) != v:t_string
      throw 'diff/open needs an id, a filePath and a newContent string'
    endif
    let client = get(a:params, 'client', v:null)
    call self.editor.show_diff({'id': id, 'path': path, 'new': new,
          \ 'old': s:string_or_null(get(a:params, 'oldContent', v:null)),
          \ 'client': type(client) == v:t_dict ? client : v:null})
    return {}
  elseif a:method ==# 'diff/close'
    return {'content': self.editor.close_diff(get(a:params, 'id', v:null))}
  endif
  return v:null
endfunction

function! s:Bridge.notification(method, params) abort
  let params = s:dict_or_empty(a:params)
  if a:method ==# 'env/changed'
    call self.editor.env_changed(s:dict_or_empty(get(params, 'env', {})))
  elseif a:method ==# 'status'
    call self.editor.clients_changed(s:list_or_empty(get(params, 'clients', [])))
  elseif a:method ==# 'warnings'
    call self.editor.warnings_changed(s:warnings_of(get(params, 'warnings', [])))
  elseif a:method ==# 'diff/closed' && type(get(params, 'message', v:null)) == v:t_string
    call self.editor.diff_closed({'id': get(params, 'id', v:null),
          \ 'path': s:text(get(params, 'filePath', '')), 'message': params.message,
          \ 'kept_text': s:string_or_null(get(params, 'keptText', v:null))})
  elseif a:method ==# 'diff/outcome' && type(get(params, 'message', v:null)) == v:t_string
    call self.editor.diff_outcome({'id': get(params, 'id', v:null),
          \ 'path': s:string_or_null(get(params, 'filePath', v:null)),
          \ 'kind': s:text(get(params, 'kind', '')), 'message': params.message})
  endif
endfunction

" The process id of the sidecar, or v:null once it ended.
function! s:Bridge.pid() abort
  return self.rpc.pid()
endfunction

" {editor}: {name, display_name, version, pid, folders}. {Callback}(error, session) runs once:
" session is {port, env, discovery_files, warnings, selection_limit}, error v:null or a
" message; selection_limit is how many characters of a selection the CLIs keep.
function! s:Bridge.initialize(editor, Callback) abort
  let bridge = self
  call self.rpc.request('initialize', {
        \ 'protocol': s:PROTOCOL,
        \ 'editor': {'name': a:editor.name, 'displayName': a:editor.display_name,
        \            'version': a:editor.version, 'pid': a:editor.pid},
        \ 'workspaceFolders': a:editor.folders,
        \ }, {error, result -> bridge.initialized(error, result, a:Callback)})
endfunction

function! s:Bridge.initialized(error, result, Callback) abort
  if a:error isnot v:null || type(a:result) != v:t_dict || type(get(a:result, 'port')) != v:t_number
    call a:Callback(a:error isnot v:null ? s:text(get(a:error, 'message', ''))
          \ : 'unexpected reply to initialize', v:null)
    return
  endif
  call a:Callback(v:null, {'port': a:result.port,
        \ 'env': s:dict_or_empty(get(a:result, 'env', {})),
        \ 'discovery_files': s:list_or_empty(get(a:result, 'discoveryFiles', [])),
        \ 'warnings': s:warnings_of(get(a:result, 'warnings', [])),
        \ 'selection_limit': get(s:dict_or_empty(get(a:result, 'limits', {})), 'selectedText', v:null)})
endfunction

function! s:Bridge.workspace_changed(folders) abort
  call self.rpc.notify('workspace/changed', {'workspaceFolders': a:folders})
endfunction

function! s:Bridge.file_opened(path) abort
  call self.rpc.notify('file/opened', {'path': a:path})
endfunction

function! s:Bridge.file_closed(path) abort
  call self.rpc.notify('file/closed', {'path': a:path})
endfunction

function! s:Bridge.file_focused(path) abort
  call self.rpc.notify('file/focused', {'path': a:path})
endfunction

" bridge.cursor_changed(path, line, character, selected_text, anchor): {character} counts
" characters from 1; {selected_text} is null without a selection, and with one {anchor} is
" {line, character}, where it began. Compiled: every look at the cursor that finds it moved sends
" it (cursor.vim).
def s:cursor_changed(bridge: dict<any>, path: string, line: number, character: number,
    selected_text: any, anchor: any)
  var fields: dict<any> = {path: path, line: line, character: character}
  if type(anchor) == v:t_dict
    fields.anchor = anchor
  endif
  var params = json_encode(fields)
  if type(selected_text) == v:t_string
    # A selection that changes past the limit keeps its text, up to 16 KB: encoded once.
    if selected_text != bridge.selection_sent[0]
      bridge.selection_sent = [selected_text, json_encode(selected_text)]
    endif
    params = strpart(params, 0, len(params) - 1) .. ',"selectedText":' .. bridge.selection_sent[1] .. '}'
  endif
  bridge.rpc.notify_encoded('cursor/changed', params)
enddef

" Sends a diff's answer; {Done}(error) once it was taken (error v:null) or refused:
" {message, gone}, gone when the diff is not open any more.
function! s:Bridge.answer(method, params, Done) abort
  call self.rpc.request(a:method, a:params, {error, _ -> a:Done(error is v:null ? v:null
        \ : {'message': s:text(get(error, 'message', '')),
        \    'gone': get(error, 'code', 0) == s:DIFF_NOT_OPEN})})
endfunction

" The user accepted diff {id} with {content} (the whole text, their edits included).
function! s:Bridge.accept_diff(id, content, Done) abort
  call self.answer('diff/accepted', {'id': a:id, 'content': a:content}, a:Done)
endfunction

" The user rejected diff {id}, or closed its view.
function! s:Bridge.reject_diff(id, Done) abort
  call self.answer('diff/rejected', {'id': a:id}, a:Done)
endfunction

" Sends the file at {path}, or its lines {first}..{last} (1-based; v:null for the whole file), to
" the CLIs' prompts (Claude Code shows `@file#L2-3`). {Done}(error, answer) runs once: answer is
" {ok, message}, error v:null or a message.
function! s:Bridge.mention(path, first, last, Done) abort
  let params = {'path': a:path}
  if a:first isnot v:null
    let params.lines = {'start': a:first, 'end': a:last}
  endif
  call self.rpc.request('mention', params, {error, result -> s:mentioned(error, result, a:Done)})
endfunction

function! s:mentioned(error, result, Done) abort
  if a:error isnot v:null || type(a:result) != v:t_dict || type(get(a:result, 'message')) != v:t_string
    call a:Done(a:error isnot v:null ? s:text(get(a:error, 'message', ''))
          \ : 'unexpected reply to mention', v:null)
    return
  endif
  call a:Done(v:null, {'ok': get(a:result, 'ok') is v:true, 'message': a:result.message})
endfunction

" Closes the sidecar's stdin: it then cleans up and exits.
function! s:Bridge.close() abort
  call self.rpc.close_stdin()
endfunction

" Ends the sidecar within about {timeout} ms: `shutdown` (it rejects every open diff and
" removes its discovery files) and the end of its stdin, whichever it reads first; one that
" does not exit by then is stopped.
function! s:Bridge.stop(timeout) abort
  call self.rpc.request('shutdown', {}, {error, result -> 0})
  call self.rpc.close_stdin()
  call self.rpc.wait_or_stop(a:timeout)
endfunction
