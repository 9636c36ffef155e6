" Finding the buffer that edits a file.

" The loaded buffer that edits the file at {path} (symbolic links resolved), or -1.
function! tandem#buffers#for_file(path) abort
  let real = resolve(a:path)
  for info in getbufinfo({'bufloaded': 1})
    if info.name !=# '' && getbufvar(info.bufnr, '&buftype') ==# ''
      let full = fnamemodify(info.name, ':p')
      if full ==# a:path || resolve(full) ==# real
        return info.bufnr
      endif
    endif
  endfor
  return -1
endfunction
