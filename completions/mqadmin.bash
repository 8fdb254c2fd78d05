# mqadmin completion for bash (mqadmin --install-completion bash). The whole line goes to mqadmin: bash splits
# its words at ':' and '=', which would cut -n host:port in two.
_mqadmin_complete() {
    local cur=${COMP_WORDS[COMP_CWORD]} IFS=$'\n'
    local -a reply
    reply=($(_MQADMIN_COMPLETE=bash _MQADMIN_LINE=${COMP_LINE:0:COMP_POINT} _MQADMIN_CUR=$cur "$1" 2>/dev/null))
    case ${reply[0]} in
        :files) COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames ;;
        :dirs) COMPREPLY=($(compgen -d -- "$cur")); compopt -o filenames ;;
        *) COMPREPLY=("${reply[@]}") ;;
    esac
}
complete -F _mqadmin_complete mqadmin
