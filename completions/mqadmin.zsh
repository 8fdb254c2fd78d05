
#compdef mqadmin

_mqadmin_completion() {
  eval $(env _TYPER_COMPLETE_ARGS="${words[1,$CURRENT]}" _MQADMIN_COMPLETE=complete_zsh mqadmin)
}

compdef _mqadmin_completion mqadmin
