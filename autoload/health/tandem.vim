" :checkhealth tandem, for Neovim versions whose health framework looks here.
function! health#tandem#check() abort
  lua require('tandem.health').check()
endfunction
