# mqadmin completion for fish (mqadmin --install-completion fish).
function __mqadmin_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l reply (_MQADMIN_COMPLETE=fish $words[1] $words[2..-1] "$cur" 2>/dev/null)
    switch "$reply[1]"
        case :files
            __fish_complete_path "$cur"
        case :dirs
            __fish_complete_directories "$cur"
        case '*'
            printf '%s\n' $reply
    end
end
complete --command mqadmin --no-files --arguments '(__mqadmin_complete)'
