" Tandem for Vim: the IDE companion of Gemini CLI and Qwen Code (see :help tandem-vim).
" Neovim loads plugin/tandem.lua instead.
if has('nvim') || exists('g:loaded_tandem_vim')
  finish
endif
let g:loaded_tandem_vim = 1

if v:version < 900 || !has('job') || !has('channel') || !has('timers') || !has('terminal')
  echohl WarningMsg
  echomsg 'Tandem needs Vim 9.0 or newer with +job, +channel, +timers and +terminal'
  echohl None
  finish
endif

command! -nargs=+ -range -complete=customlist,tandem#complete Tandem
      \ call tandem#command({-> tandem#run([<f-args>], <range>, <line1>, <line2>)})
command! -nargs=0 TandemStart call tandem#command({-> tandem#start()})
command! -nargs=0 TandemStop call tandem#command({-> tandem#stop()})
command! -nargs=0 TandemStatus call tandem#command({-> tandem#print_status()})
command! -nargs=0 TandemDoctor call tandem#command({-> tandem#doctor()})
command! -nargs=0 TandemEnv call tandem#command({-> tandem#print_env()})
command! -nargs=0 TandemAccept call tandem#command({-> tandem#accept()})
command! -nargs=0 TandemReject call tandem#command({-> tandem#reject()})

" Start once Vim is up, in its working directory, unless the user said not to.
augroup TandemStart
  autocmd!
  autocmd VimEnter * if get(g:, 'tandem_autostart', 1) | call tandem#command({-> tandem#start()}) | endif
augroup END
