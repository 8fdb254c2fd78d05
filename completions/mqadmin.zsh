#compdef mqadmin
# mqadmin completion for zsh (mqadmin --install-completion zsh): autoloaded from $fpath, or sourced.
_mqadmin() {
    local -a reply
    reply=("${(@f)$(_MQADMIN_COMPLETE=zsh ${words[1]} "${(@Q)words[2,CURRENT-1]}" "${(Q)PREFIX}" 2>/dev/null)}")
    case $reply[1] in
        :files) _files ;;
        :dirs) _files -/ ;;
        '') return 1 ;;
        *) compadd -a reply ;;
    esac
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
    _mqadmin "$@"
else
    compdef _mqadmin mqadmin
fi
